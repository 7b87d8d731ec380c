'use client';

import { useEffect, useReducer, useRef } from 'react';
import type { PublicRunEvent, RunStreamEnd } from '@/common/run-events';
import { mergeEvents } from './derive';

// The live trajectory of one run over SSE. Events are kept by seq, so a
// replay after a reconnect (EventSource resends Last-Event-ID itself) or a
// fresh connection (after=<last seq>) can never duplicate or reorder them.
// `end` arrives once the run is over; the connection is then closed so the
// browser does not reconnect and replay. Every run event is a default SSE
// message with its type inside (common/run-events.ts), so this hook never
// lists types: whatever the contract holds arrives.

export type ConnectionState = 'connecting' | 'open' | 'reconnecting' | 'closed';

interface State {
  events: PublicRunEvent[];
  end: RunStreamEnd | null;
  connection: ConnectionState;
}

type Action = { kind: 'events'; events: PublicRunEvent[] } | { kind: 'end'; end: RunStreamEnd } | { kind: 'connection'; connection: ConnectionState };

function reducer(state: State, action: Action): State {
  switch (action.kind) {
    case 'events': {
      const events = mergeEvents(state.events, action.events);
      return events === state.events ? state : { ...state, events };
    }
    case 'end':
      return { ...state, end: action.end, connection: 'closed' };
    case 'connection':
      return state.connection === action.connection ? state : { ...state, connection: action.connection };
  }
}

const RECONNECT_MS = 2_000;

export function useRunEvents({
  runId,
  initialEvents = [],
  initialEnd = null,
}: {
  runId: string;
  /** events the server rendered with the page */
  initialEvents?: PublicRunEvent[];
  /** the run was already over when the page rendered */
  initialEnd?: RunStreamEnd | null;
}): State {
  const [state, dispatch] = useReducer(reducer, {
    events: initialEvents,
    end: initialEnd,
    connection: initialEnd ? 'closed' : 'connecting',
  });
  // the newest seq held, readable from event handlers without re-subscribing
  const lastSeq = useRef(initialEvents.at(-1)?.seq ?? -1);
  lastSeq.current = Math.max(lastSeq.current, state.events.at(-1)?.seq ?? -1);
  const ended = state.end !== null;

  useEffect(() => {
    if (ended) return;
    let source: EventSource | null = null;
    let retry: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    // Many events can arrive in one task burst; render them once per frame.
    let queue: PublicRunEvent[] = [];
    let frame: number | null = null;
    const flush = () => {
      frame = null;
      const batch = queue;
      queue = [];
      if (batch.length) dispatch({ kind: 'events', events: batch });
    };

    const connect = () => {
      if (stopped) return;
      dispatch({ kind: 'connection', connection: lastSeq.current >= 0 ? 'reconnecting' : 'connecting' });
      source = new EventSource(`/api/runs/${encodeURIComponent(runId)}/events?after=${lastSeq.current}`);
      const es = source;
      const onEvent = (message: MessageEvent<string>) => {
        let event: PublicRunEvent;
        try {
          event = JSON.parse(message.data) as PublicRunEvent;
        } catch {
          return;
        }
        if (event.seq <= lastSeq.current) return;
        lastSeq.current = event.seq;
        queue.push(event);
        frame ??= requestAnimationFrame(flush);
      };
      es.onmessage = onEvent;
      es.addEventListener('end', ((message: MessageEvent<string>) => {
        es.close();
        if (frame !== null) cancelAnimationFrame(frame);
        flush();
        try {
          dispatch({ kind: 'end', end: JSON.parse(message.data) as RunStreamEnd });
        } catch {
          dispatch({ kind: 'connection', connection: 'closed' });
        }
      }) as EventListener);
      es.onopen = () => dispatch({ kind: 'connection', connection: 'open' });
      es.onerror = () => {
        if (es.readyState === EventSource.CONNECTING) {
          // the browser retries by itself, sending Last-Event-ID
          dispatch({ kind: 'connection', connection: 'reconnecting' });
          return;
        }
        // closed for good (an HTTP error): start over from our own last seq
        es.close();
        dispatch({ kind: 'connection', connection: 'reconnecting' });
        retry = setTimeout(connect, RECONNECT_MS);
      };
    };
    connect();
    return () => {
      stopped = true;
      if (retry) clearTimeout(retry);
      if (frame !== null) cancelAnimationFrame(frame);
      source?.close();
    };
  }, [runId, ended]);

  return state;
}
