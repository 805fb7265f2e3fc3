// A small OpenAI-compatible chat-completions server over node-llama-cpp, on 127.0.0.1 only.
//
// It is the real model behind the LLM engine's integration test and `dreamstream eval --engine llm`
// on this machine: POST /v1/chat/completions (system, user and assistant messages; temperature;
// max_tokens; response_format json_schema -> the model's grammar, json_object -> any JSON), the
// usage of each call counted by the model's own tokenizer, and OpenAI's error shape for a prompt
// that does not fit the context (so litellm raises ContextWindowExceededError). One request at a
// time on one context sequence: the model runs on `--threads` threads (1 by default: on shared
// cores two threads were 15x slower than one).
//
//   node server.mjs --model SmolLM2-135M-Instruct.Q4_1.gguf [--port 0] [--threads 1] [--context 8192]
//
// Once ready it prints one JSON line on stdout: {"url": "http://127.0.0.1:PORT/v1", ...}.

import http from "node:http";
import path from "node:path";
import { parseArgs } from "node:util";
import { getLlama, LlamaChatSession } from "node-llama-cpp";

const { values: options } = parseArgs({
    options: {
        model: { type: "string" },
        port: { type: "string", default: "0" },
        threads: { type: "string", default: "1" },
        context: { type: "string", default: "8192" },
        "max-body-bytes": { type: "string", default: String(8 * 1024 * 1024) },
    },
});
if (!options.model) {
    console.error("usage: node server.mjs --model PATH.gguf [--port 0] [--threads 1] [--context 8192]");
    process.exit(2);
}
const threads = Number(options.threads);
const maxBodyBytes = Number(options["max-body-bytes"]);
const modelName = path.basename(options.model, ".gguf");

const llama = await getLlama({ gpu: false, build: "never", maxThreads: threads, logLevel: "error" });
const model = await llama.loadModel({ modelPath: options.model });
const context = await model.createContext({ contextSize: Number(options.context), threads, sequences: 1 });
const sequence = context.getSequence();

class BadRequest extends Error {
    constructor(message, code = null) {
        super(message);
        this.code = code;
    }
}

// --- JSON Schema -> the subset node-llama-cpp turns into a grammar
const DROPPED = new Set(["title", "default", "discriminator", "minimum", "maximum", "examples", "$schema", "$id"]);

function grammarSchema(node) {
    if (Array.isArray(node)) return node.map(grammarSchema);
    if (node === null || typeof node !== "object") return node;
    const out = {};
    for (const [key, value] of Object.entries(node)) {
        if (DROPPED.has(key)) continue;
        out[key === "anyOf" ? "oneOf" : key] = grammarSchema(value);
    }
    if (out.type === "object" && out.additionalProperties === undefined) out.additionalProperties = false;
    return out;
}

async function grammarFor(responseFormat) {
    if (!responseFormat || responseFormat.type === "text") return undefined;
    if (responseFormat.type === "json_object") return llama.getGrammarFor("json");
    if (responseFormat.type === "json_schema") {
        const schema = responseFormat.json_schema?.schema;
        if (!schema || typeof schema !== "object") throw new BadRequest("response_format.json_schema.schema is missing");
        try {
            return await llama.createGrammarForJsonSchema(grammarSchema(schema));
        } catch (err) {
            throw new BadRequest(`response_format.json_schema cannot be made a grammar: ${err.message}`);
        }
    }
    throw new BadRequest(`response_format.type ${JSON.stringify(responseFormat.type)} is not supported`);
}

// --- chat messages -> node-llama-cpp chat history
function text(content) {
    if (typeof content === "string") return content;
    if (Array.isArray(content)) return content.map((part) => (part?.type === "text" ? part.text : "")).join("");
    throw new BadRequest("message content must be a string or a list of text parts");
}

function history(messages) {
    if (!Array.isArray(messages) || messages.length === 0) throw new BadRequest("messages must be a non-empty list");
    const last = messages[messages.length - 1];
    if (last?.role !== "user") throw new BadRequest("the last message must be the user's");
    const items = messages.slice(0, -1).map((message) => {
        const body = text(message?.content ?? "");
        if (message?.role === "system") return { type: "system", text: body };
        if (message?.role === "user") return { type: "user", text: body };
        if (message?.role === "assistant") return { type: "model", response: [body] };
        throw new BadRequest(`message role ${JSON.stringify(message?.role)} is not supported`);
    });
    return { items, prompt: text(last.content) };
}

// --- one completion at a time on the one sequence
let queue = Promise.resolve();
let served = 0;

function serialised(work) {
    const run = queue.then(work, work);
    queue = run.catch(() => undefined);
    return run;
}

async function complete(body) {
    const { items, prompt } = history(body.messages);
    const maxTokens = Number.isInteger(body.max_tokens) && body.max_tokens > 0 ? body.max_tokens : 512;
    const grammar = await grammarFor(body.response_format);
    const session = new LlamaChatSession({ contextSequence: sequence, autoDisposeSequence: false });
    try {
        session.setChatHistory(items);
        const rendered = session.chatWrapper.generateContextState({
            chatHistory: [...items, { type: "user", text: prompt }, { type: "model", response: [] }],
        });
        const promptTokens = rendered.contextText.tokenize(model.tokenizer).length;
        if (promptTokens + maxTokens > context.contextSize) {
            throw new BadRequest(
                `This model's maximum context length is ${context.contextSize} tokens. However, you requested ` +
                    `${promptTokens + maxTokens} tokens (${promptTokens} in the messages, ${maxTokens} in the completion).`,
                "context_length_exceeded",
            );
        }
        const before = sequence.tokenMeter.usedOutputTokens;
        const started = performance.now();
        let firstToken = null;
        const answer = await session.promptWithMeta(prompt, {
            grammar,
            onToken: () => {
                firstToken ??= performance.now();
            },
            maxTokens,
            temperature: typeof body.temperature === "number" ? body.temperature : 0,
            seed: Number.isInteger(body.seed) ? body.seed : 0,
        });
        const completionTokens = sequence.tokenMeter.usedOutputTokens - before;
        const finished = performance.now();
        served += 1;
        return {
            id: `chatcmpl-local-${served}`,
            object: "chat.completion",
            created: Math.floor(Date.now() / 1000),
            model: body.model || modelName,
            choices: [
                {
                    index: 0,
                    message: { role: "assistant", content: answer.responseText },
                    finish_reason: answer.stopReason === "maxTokens" ? "length" : "stop",
                },
            ],
            usage: {
                prompt_tokens: promptTokens,
                completion_tokens: completionTokens,
                total_tokens: promptTokens + completionTokens,
            },
            // as llama.cpp's own server reports them: reading the prompt, then writing the reply
            timings: {
                prompt_ms: Math.round((firstToken ?? finished) - started),
                predicted_ms: Math.round(finished - (firstToken ?? finished)),
                predicted_per_second: completionTokens / Math.max((finished - (firstToken ?? finished)) / 1000, 1e-3),
            },
        };
    } finally {
        session.dispose({ disposeSequence: false });
        await sequence.clearHistory();
    }
}

// --- HTTP
function send(response, status, payload) {
    const data = JSON.stringify(payload);
    response.writeHead(status, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(data) });
    response.end(data);
}

function readBody(request) {
    return new Promise((resolve, reject) => {
        const chunks = [];
        let size = 0;
        request.on("data", (chunk) => {
            size += chunk.length;
            if (size > maxBodyBytes) {
                reject(new BadRequest(`request body over ${maxBodyBytes} bytes`));
                request.destroy();
            } else chunks.push(chunk);
        });
        request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
        request.on("error", reject);
    });
}

const server = http.createServer(async (request, response) => {
    const route = (request.url || "").split("?")[0].replace(/\/+$/, "");
    try {
        if (request.method === "GET" && (route === "/health" || route === "/v1/health")) {
            send(response, 200, { status: "ok", model: modelName, served });
        } else if (request.method === "GET" && route === "/v1/models") {
            send(response, 200, { object: "list", data: [{ id: modelName, object: "model", owned_by: "local" }] });
        } else if (request.method === "POST" && route === "/v1/chat/completions") {
            let body;
            try {
                body = JSON.parse(await readBody(request));
            } catch (err) {
                throw err instanceof BadRequest ? err : new BadRequest(`request body is not JSON: ${err.message}`);
            }
            if (body.stream) throw new BadRequest("stream is not supported");
            send(response, 200, await serialised(() => complete(body)));
        } else {
            send(response, 404, { error: { message: `no route ${request.method} ${route}`, type: "not_found" } });
        }
    } catch (err) {
        const bad = err instanceof BadRequest;
        if (!bad) console.error(err);
        send(response, bad ? 400 : 500, {
            error: { message: err.message, type: bad ? "invalid_request_error" : "server_error", code: err.code ?? null },
        });
    }
});

function shutdown() {
    server.close();
    context.dispose().finally(() => process.exit(0));
}
process.on("SIGTERM", shutdown);
process.on("SIGINT", shutdown);

server.listen(Number(options.port), "127.0.0.1", () => {
    const { port } = server.address();
    const ready = { url: `http://127.0.0.1:${port}/v1`, model: modelName, context: context.contextSize, threads };
    process.stdout.write(`${JSON.stringify(ready)}\n`);
});
