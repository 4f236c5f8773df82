#!/usr/bin/env node
// Cargo's runner for wasm32-wasip1 (see .cargo/config.toml): runs a WASI
// preview 1 module under Node's WASI with the given arguments, the caller's
// environment and the current directory preopened, and exits with its code.
import { readFile } from "node:fs/promises";
import { WASI } from "node:wasi";
import process from "node:process";

const [module, ...args] = process.argv.slice(2);
if (!module) {
  console.error("usage: wasi-run.mjs MODULE.wasm [ARGS...]");
  process.exit(2);
}
const wasi = new WASI({
  version: "preview1",
  args: [module, ...args],
  env: process.env,
  preopens: { ".": process.cwd() },
  returnOnExit: true,
});
const compiled = await WebAssembly.compile(await readFile(module));
const instance = await WebAssembly.instantiate(compiled, wasi.getImportObject());
process.exitCode = wasi.start(instance);
