/** json-escape-wasm.ts as `npm run build:wasm` writes it from json-escape.wat. */
export function compiledModule(): Promise<string>;
