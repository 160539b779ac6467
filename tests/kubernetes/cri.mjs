// A small CRI client: calls containerd's RuntimeService as the kubelet does,
// with the messages of cri.proto. It serves the suite's calls for its whole
// run (node and grpc-js take seconds to load under emulation, and a pod
// takes five calls):
//   node cri.mjs SOCKET FIFO
// reads requests from the FIFO, each NUL-terminated fields: the count of
// the fields after the next, the path of a FIFO for the reply, a METHOD and
// its arguments:
//   METHOD [JSON]       any RuntimeService method
//   wait-exit ID SECS   ContainerStatus until it exited
//   wait-running ID SECS
//   start-all ID...     StartContainer of each at once, as a kubelet
//                       starting many pods does
//   remove-pods ID...   StopPodSandbox then RemovePodSandbox of each
//                       sandbox, all at once
// and answers each, as it ends (calls run side by side), into its reply FIFO:
// a status line (0 done, 1 the call failed or the wait timed out, 2 no such
// method), then the reply as JSON or why it failed.
import { createReadStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import grpc from '@grpc/grpc-js';
import protoLoader from '@grpc/proto-loader';

const here = path.dirname(fileURLToPath(import.meta.url));
const [socket, fifo] = process.argv.slice(2);
if (!socket || !fifo) {
  console.error('usage: node cri.mjs SOCKET FIFO');
  process.exit(2);
}

const definition = protoLoader.loadSync(path.join(here, 'cri.proto'), {
  keepCase: true,
  longs: Number,
  enums: String,
  defaults: true,
});
const runtime = grpc.loadPackageDefinition(definition).runtime.v1;
// The channel outlives the calls, those made before containerd listens too:
// reconnect within a second, not grpc's backoff of up to two minutes.
const client = new runtime.RuntimeService(`unix://${socket}`, grpc.credentials.createInsecure(), {
  'grpc.initial_reconnect_backoff_ms': 200,
  'grpc.max_reconnect_backoff_ms': 1000,
});

function call(name, request) {
  return new Promise((resolve, reject) => {
    const deadline = new Date(Date.now() + 600 * 1000);
    client[name](request, { deadline }, (err, reply) => (err ? reject(err) : resolve(reply)));
  });
}

// Polls ContainerStatus until want(state) holds or secs pass.
async function waitFor(id, secs, want) {
  const end = Date.now() + Number(secs) * 1000;
  for (;;) {
    const reply = await call('ContainerStatus', { container_id: id });
    if (want(reply.status.state)) return reply;
    if (Date.now() > end) throw new Error(`container ${id} still ${reply.status.state} after ${secs} s`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

class NoMethod extends Error {}

function request(method, args) {
  if (method === 'wait-exit')
    return waitFor(args[0], args[1], (s) => s === 'CONTAINER_EXITED' || s === 'CONTAINER_UNKNOWN');
  if (method === 'wait-running') return waitFor(args[0], args[1], (s) => s !== 'CONTAINER_CREATED');
  if (method === 'start-all') return Promise.all(args.map((id) => call('StartContainer', { container_id: id })));
  if (method === 'remove-pods')
    return Promise.all(
      args.map(async (id) => {
        await call('StopPodSandbox', { pod_sandbox_id: id });
        return call('RemovePodSandbox', { pod_sandbox_id: id });
      }),
    );
  if (typeof client[method] !== 'function') throw new NoMethod(`no method ${method}`);
  return call(method, args[0] ? JSON.parse(args[0]) : {});
}

// bytes fields (ExecSync's stdout, stderr) as text; a Buffer reaches the replacer as its toJSON().
const text = (k, v) => (v && v.type === 'Buffer' && Array.isArray(v.data) ? Buffer.from(v.data).toString() : v);

async function answer(reply, method, args) {
  let out;
  try {
    out = `0\n${JSON.stringify(await request(method, args), text)}\n`;
  } catch (err) {
    out = `${err instanceof NoMethod ? 2 : 1}\ncri: ${method}: ${err.message}\n`;
  }
  await writeFile(reply, out).catch((err) => console.error(`cri: reply to ${reply}: ${err.message}`));
}

// Read and write: the FIFO never reaches end of file between the suite's writers.
const requests = createReadStream(fifo, { flags: 'r+', encoding: 'utf8' });
let fields = [];
let partial = '';
for await (const chunk of requests) {
  const parts = (partial + chunk).split('\0');
  partial = parts.pop();
  for (const field of parts) {
    fields.push(field);
    if (fields.length === Number(fields[0]) + 2) {
      const [, reply, method, ...args] = fields;
      fields = [];
      answer(reply, method, args);
    }
  }
}
