// Validates Kubernetes manifests against the JSON schemas of the Kubernetes
// API (kubernetes-models, compiled from the API's OpenAPI document with Ajv):
// types, required fields, enums and formats. Those schemas allow fields they
// do not define, which the API server's strict field validation rejects, so
// a field that the validator never looked at is reported as unknown.
//
// Usage: node check_manifests.mjs FILE...   exit 1 if any document fails.
import { readFileSync } from "node:fs";
import { parseAllDocuments } from "yaml";

// "apps/v1" + "DaemonSet" -> "IoK8sApiAppsV1DaemonSet"; "v1" is the core group.
function schemaName(apiVersion, kind) {
  const [group, version] = apiVersion.includes("/") ? apiVersion.split("/") : ["core", apiVersion];
  const cap = (s) => s.charAt(0).toUpperCase() + s.slice(1);
  return `IoK8sApi${cap(group.split(".")[0])}${cap(version)}${kind}`;
}

// Wraps value so that every property the validator reads is recorded in read.
function tracked(value, read, proxies) {
  if (value === null || typeof value !== "object") return value;
  if (!proxies.has(value)) {
    proxies.set(value, new Proxy(value, {
      get(target, key, receiver) {
        if (typeof key === "string") {
          if (!read.has(target)) read.set(target, new Set());
          read.get(target).add(key);
        }
        return tracked(Reflect.get(target, key, receiver), read, proxies);
      },
    }));
  }
  return proxies.get(value);
}

function unknownFields(value, read, path, out) {
  if (value === null || typeof value !== "object") return out;
  const seen = read.get(value) ?? new Set();
  for (const [key, child] of Object.entries(value)) {
    const childPath = `${path}/${key}`;
    if (!Array.isArray(value) && !seen.has(key)) out.push(`${childPath}: unknown field "${key}"`);
    else unknownFields(child, read, childPath, out);
  }
  return out;
}

// The compiled validators carry no messages: phrase the common keywords.
function describe({ keyword, params }) {
  switch (keyword) {
    case "type": return `must be ${params.type}`;
    case "required": return `must have required property '${params.missingProperty}'`;
    case "enum": return `must be one of: ${params.allowedValues.join(", ")}`;
    case "format": return `must match format "${params.format}"`;
    default: return `fails "${keyword}" ${JSON.stringify(params)}`;
  }
}

async function validateDocument(doc) {
  if (typeof doc !== "object" || doc === null || Array.isArray(doc)) return ["not a mapping"];
  if (typeof doc.apiVersion !== "string" || typeof doc.kind !== "string")
    return ["apiVersion and kind must be strings"];
  let validate;
  try {
    ({ validate } = await import(`kubernetes-models/_schemas/${schemaName(doc.apiVersion, doc.kind)}`));
  } catch {
    return [`no Kubernetes schema for ${doc.apiVersion} ${doc.kind}`];
  }
  const read = new WeakMap();
  if (!validate(tracked(doc, read, new WeakMap())))
    return validate.errors.map((e) => `${e.instancePath || "/"}: ${describe(e)}`);
  return unknownFields(doc, read, "", []);
}

let failed = 0;
for (const file of process.argv.slice(2)) {
  const docs = parseAllDocuments(readFileSync(file, "utf8"));
  for (const [i, doc] of (Array.isArray(docs) ? docs : [docs]).entries()) {
    const value = doc.toJS();
    const name = `${file}: document ${i + 1} (${value?.kind ?? "?"}/${value?.metadata?.name ?? "?"})`;
    const errors = doc.errors.length ? doc.errors.map((e) => e.message) : await validateDocument(value);
    if (errors.length) {
      failed++;
      for (const e of errors) console.log(`${name}: ${e}`);
    } else {
      console.log(`${name}: valid`);
    }
  }
}
process.exit(failed ? 1 : 0);
