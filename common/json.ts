// What a server value becomes on the wire: the API answers with JSON, so a
// Date arrives as its ISO string. Client code types a route's answer as
// `Jsonify<the lib type the route returns>` instead of writing the shape
// again by hand.
export type Jsonify<T> = T extends Date ? string : T extends Array<infer U> ? Array<Jsonify<U>> : T extends object ? { [K in keyof T]: Jsonify<T[K]> } : T;
