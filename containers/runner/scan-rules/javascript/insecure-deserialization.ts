import serialize from "node-serialize";
import yaml from "js-yaml";
import funcster from "funcster";

export function load(body: string) {
  // ruleid: bouts.js.insecure-deserialization.unsafe-deserializer
  const a = serialize.unserialize(body);
  // ruleid: bouts.js.insecure-deserialization.unsafe-deserializer
  const b = yaml.unsafeLoad(body);
  // ruleid: bouts.js.insecure-deserialization.unsafe-deserializer
  const c = funcster.deserialize(body);
  // ok: bouts.js.insecure-deserialization.unsafe-deserializer
  const d = JSON.parse(body);
  // ok: bouts.js.insecure-deserialization.unsafe-deserializer
  const e = yaml.load(body);
  return [a, b, c, d, e];
}
