// Runs inside the sandbox (lib/sandbox/egress.ts): listens on the sandbox's
// own 127.0.0.1:PORT, forwards every connection to the egress proxy's unix
// socket, and runs the command as its child, exiting with its status.
'use strict';
const net = require('node:net');
const { spawn } = require('node:child_process');

const [socketPath, port, ...command] = process.argv.slice(2);
const server = net.createServer((client) => {
  const upstream = net.connect(socketPath);
  upstream.on('error', () => client.destroy());
  client.on('error', () => upstream.destroy());
  client.pipe(upstream).pipe(client);
});
server.listen(Number(port), '127.0.0.1', () => {
  const child = spawn(command[0], command.slice(1), { stdio: 'inherit' });
  child.on('error', (err) => {
    process.stderr.write(`flowfix relay: ${err.message}\n`);
    process.exit(127);
  });
  child.on('exit', (code, signal) => {
    process.exit(code ?? 128 + (require('node:os').constants.signals[signal] ?? 1));
  });
});
