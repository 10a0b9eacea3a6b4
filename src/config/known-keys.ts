/**
 * The keys a config schema takes at a place in the file: what an "unknown key" error offers instead (a typo
 * or a key from another tool is fixed by reading the list, not the README). Read from the zod schema itself,
 * so the list is never out of date.
 */

/** The part of zod 4's schema definitions walked here (`schema._zod.def`). */
interface SchemaNode {
  _zod: { def: SchemaDef };
}
interface SchemaDef {
  type: string;
  innerType?: SchemaNode;
  in?: SchemaNode;
  shape?: Record<string, SchemaNode>;
  element?: SchemaNode;
  valueType?: SchemaNode;
  options?: SchemaNode[];
}

const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'readonly', 'catch', 'nonoptional']);

/** The schema a wrapper (optional, default, a pipe) stands for. */
function unwrap(node: SchemaNode): SchemaNode {
  let current = node;
  for (;;) {
    const def = current._zod.def;
    if (WRAPPERS.has(def.type) && def.innerType) current = def.innerType;
    else if (def.type === 'pipe' && def.in) current = def.in;
    else return current;
  }
}

/** The schemas that may hold the value at `key` inside `node` (a union tries each of its options). */
function childrenOf(node: SchemaNode, key: string | number): SchemaNode[] {
  const def = unwrap(node)._zod.def;
  if (def.type === 'union') return (def.options ?? []).flatMap((option) => childrenOf(option, key));
  if (def.type === 'object') {
    const child = def.shape?.[String(key)];
    return child ? [child] : [];
  }
  if (def.type === 'array' && def.element) return [def.element];
  if (def.type === 'record' && def.valueType) return [def.valueType];
  return [];
}

function keysOf(node: SchemaNode): string[] {
  const def = unwrap(node)._zod.def;
  if (def.type === 'union') return (def.options ?? []).flatMap(keysOf);
  return def.type === 'object' ? Object.keys(def.shape ?? {}) : [];
}

/** The keys the object at `path` may have, in the schema's order, or none when no object is there. */
export function knownKeysAt(schema: unknown, path: ReadonlyArray<string | number>): string[] {
  let nodes = [schema as SchemaNode];
  for (const key of path) nodes = nodes.flatMap((node) => childrenOf(node, key));
  return [...new Set(nodes.flatMap(keysOf))];
}
