import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { readBody, sendJson, startLoopbackServer } from './http-server';
import {
  buildChunks,
  buildCompletion,
  isStubError,
  type ChatRequestBody,
  type StubReply,
} from './openai-completion';

export type { ChatRequestBody, StubCompletion, StubError, StubReply, StubToolCall } from './openai-completion';

/** Decides the answer to the `index`-th (0-based) chat completion request. */
export type OpenAiStubHandler = (body: ChatRequestBody, index: number) => StubReply | Promise<StubReply>;

/** A chat completion request as the stub received it. */
export interface RecordedRequest {
  /** 0-based position among chat completion requests; the same index the handler got. */
  index: number;
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: ChatRequestBody;
}

/** A running OpenAI-compatible stub server. */
export interface OpenAiStub {
  /** Pass as `baseURL` to the `openai` client: `http://127.0.0.1:PORT/v1`. */
  readonly baseURL: string;
  /** Every chat completion request received so far, including retried ones. */
  readonly requests: RecordedRequest[];
  stop(): Promise<void>;
}

/** Waits `ms`, but stops early when the client disconnects so no timer outlives the test. */
function delayUnlessClosed(res: ServerResponse, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    res.once('close', done);
    function done(): void {
      clearTimeout(timer);
      res.off('close', done);
      resolve();
    }
  });
}

function openAiError(res: ServerResponse, status: number, message: string, type: string, code: string | null): void {
  sendJson(res, status, { error: { message, type, param: null, code } });
}

/**
 * Starts an OpenAI-compatible HTTP server for POST /v1/chat/completions whose answers
 * come from `handler`, so provider behaviour (tool calls, 429s, slowness) is scripted
 * per test while the real `openai` client does the HTTP.
 */
export async function startOpenAiStub(handler: OpenAiStubHandler): Promise<OpenAiStub> {
  const requests: RecordedRequest[] = [];
  const server = await startLoopbackServer(async (req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (req.method === 'GET' && path === '/v1/models') {
      sendJson(res, 200, { object: 'list', data: [{ id: 'stub-model', object: 'model', created: 0, owned_by: 'runledger-stub' }] });
      return;
    }
    if (req.method !== 'POST' || path !== '/v1/chat/completions') {
      await readBody(req);
      openAiError(res, 404, `Unknown request URL: ${req.method} ${path}`, 'invalid_request_error', 'unknown_url');
      return;
    }
    let body: ChatRequestBody;
    try {
      body = JSON.parse((await readBody(req)).toString('utf8')) as ChatRequestBody;
    } catch (err) {
      openAiError(res, 400, `We could not parse the JSON body of your request: ${(err as Error).message}`, 'invalid_request_error', null);
      return;
    }
    const index = requests.length;
    requests.push({ index, method: req.method, path, headers: req.headers, body });
    const reply = await handler(body, index);
    if (reply.delayMs) await delayUnlessClosed(res, reply.delayMs);
    // The client may have timed out while we were "thinking"; nothing left to answer.
    if (res.destroyed) return;
    if (isStubError(reply)) {
      const { message, type = 'api_error', code = null, param = null } = reply.error;
      sendJson(res, reply.status, { error: { message, type, param, code } }, reply.headers);
      return;
    }
    if (body.stream === true) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      for (const chunk of buildChunks(reply, body, index)) res.write(`data: ${JSON.stringify(chunk)}\n\n`);
      res.end('data: [DONE]\n\n');
      return;
    }
    sendJson(res, 200, buildCompletion(reply, body, index));
  });
  return { baseURL: `http://127.0.0.1:${server.port}/v1`, requests, stop: () => server.stop() };
}
