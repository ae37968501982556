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

/** One POST /v1/audio/transcriptions as the stub received it (multipart form, parsed). */
export interface TranscriptionRequest {
  readonly headers: IncomingHttpHeaders;
  /** The uploaded file's bytes, name and content type. */
  readonly file: { readonly bytes: Buffer; readonly filename: string; readonly contentType: string };
  /** The other form fields (model, language, response_format …). */
  readonly fields: Readonly<Record<string, string>>;
}

/** What the stub answers a transcription with (verbose_json shape: seconds, like the real API). */
export interface StubTranscription {
  readonly text: string;
  readonly language?: string;
  readonly duration?: number;
  readonly segments?: ReadonlyArray<{ readonly start: number; readonly end: number; readonly text: string }>;
}

export type TranscriptionHandler = (request: TranscriptionRequest) => StubTranscription;

/** Splits a multipart/form-data body into its parts (enough of RFC 7578 for what the openai client sends). */
function parseMultipart(body: Buffer, contentType: string): TranscriptionRequest['file'] & { fields: Record<string, string> } {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/.exec(contentType);
  const fields: Record<string, string> = {};
  let file = { bytes: Buffer.alloc(0), filename: '', contentType: '' };
  if (!boundary) return { ...file, fields };
  const delimiter = Buffer.from(`--${boundary[1] ?? boundary[2]}`);
  let at = body.indexOf(delimiter);
  while (at >= 0) {
    const next = body.indexOf(delimiter, at + delimiter.length);
    if (next < 0) break;
    const part = body.subarray(at + delimiter.length + 2, next - 2);
    const split = part.indexOf('\r\n\r\n');
    const head = part.subarray(0, split).toString('utf8');
    const content = part.subarray(split + 4);
    const name = /name="([^"]*)"/.exec(head)?.[1] ?? '';
    const filename = /filename="([^"]*)"/.exec(head)?.[1];
    if (filename !== undefined) file = { bytes: Buffer.from(content), filename, contentType: /content-type:\s*([^\r\n]+)/i.exec(head)?.[1] ?? '' };
    else fields[name] = content.toString('utf8');
    at = next;
  }
  return { ...file, fields };
}

/** A running OpenAI-compatible stub server. */
export interface OpenAiStub {
  /** Every transcription request received so far. */
  readonly transcriptions: TranscriptionRequest[];
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
 * come from `handler` (and, given `transcribe`, POST /v1/audio/transcriptions), so provider behaviour (tool calls, 429s, slowness) is scripted
 * per test while the real `openai` client does the HTTP.
 */
export async function startOpenAiStub(handler: OpenAiStubHandler, transcribe?: TranscriptionHandler): Promise<OpenAiStub> {
  const requests: RecordedRequest[] = [];
  const transcriptions: TranscriptionRequest[] = [];
  const server = await startLoopbackServer(async (req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (req.method === 'GET' && path === '/v1/models') {
      sendJson(res, 200, { object: 'list', data: [{ id: 'stub-model', object: 'model', created: 0, owned_by: 'runledger-stub' }] });
      return;
    }
    if (req.method === 'POST' && path === '/v1/audio/transcriptions' && transcribe) {
      const { fields, ...file } = parseMultipart(await readBody(req), String(req.headers['content-type'] ?? ''));
      const recorded: TranscriptionRequest = { headers: req.headers, file, fields };
      transcriptions.push(recorded);
      const answer = transcribe(recorded);
      if (fields.response_format === 'text') {
        res.writeHead(200, { 'content-type': 'text/plain' }).end(answer.text);
        return;
      }
      sendJson(res, 200, { task: 'transcribe', language: answer.language ?? fields.language ?? 'en', duration: answer.duration ?? 0, text: answer.text, segments: (answer.segments ?? []).map((s, id) => ({ id, ...s })) });
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
  return { baseURL: `http://127.0.0.1:${server.port}/v1`, requests, transcriptions, stop: () => server.stop() };
}
