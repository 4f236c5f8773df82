#!/usr/bin/env node
// Cargo's runner for wasm32-unknown-unknown (see .cargo/config.toml): runs
// the detcheck scenario binary in headless Chromium's V8, with the given
// arguments, and prints its report and exits with its code as the native
// binary would — so `cargo xtask detcheck` judges the browser like any
// other target.
//
// The module gets wasm-bindgen's `--target web` glue (the CLI pinned to the
// crate's version, `wasm-bindgen` on PATH or $WASM_BINDGEN), is served on
// 127.0.0.1, and the page calls the exports of
// crates/laige-detcheck/src/web.rs: the overflow probe in a throwaway
// instance (a second import of the glue, so a second instance), then the
// run in a fresh one. Anything the page logs as an error, a page error or
// a trap fails the run with its message (exit 101, like a Rust panic).
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import process from "node:process";
import { launchChromium, serveDir, watchErrors } from "./chromium.mjs";

const [module, ...args] = process.argv.slice(2);
if (!module) {
  console.error("usage: detcheck-run.mjs MODULE.wasm [ARGS...]");
  process.exit(2);
}
if (!basename(module).startsWith("laige-detcheck")) {
  console.error(`detcheck-run.mjs runs the laige-detcheck module only, not ${module}`);
  process.exit(2);
}

const TIMEOUT_MS = Number(process.env.LAIGE_DETCHECK_WEB_TIMEOUT_MS || 15 * 60 * 1000);
const out = mkdtempSync(join(tmpdir(), "laige-detcheck-web-"));
let browser;
let server;
const timer = setTimeout(() => {
  console.error(`detcheck-run.mjs: no result after ${TIMEOUT_MS} ms`);
  process.exit(124);
}, TIMEOUT_MS);
try {
  const bindgen = process.env.WASM_BINDGEN || "wasm-bindgen";
  execFileSync(bindgen, ["--target", "web", "--no-typescript", "--out-dir", out,
    "--out-name", "detcheck", module], { stdio: ["ignore", "ignore", "inherit"] });
  // `--verify-replay FILE` (relative to the working directory, as for a
  // native binary): served beside the module, fetched by the page and
  // handed to the run, which reads it under the same name.
  const at = args.indexOf("--verify-replay");
  const file = at >= 0 ? args[at + 1] : null;
  if (file) copyFileSync(join(process.cwd(), file), join(out, "recording.lrp"));
  const page_html = "<!doctype html><meta charset=utf-8><title>laige detcheck</title><link rel=icon href=\"data:,\">";
  server = await serveDir(out, { "/index.html": page_html });
  browser = await launchChromium();
  const page = await browser.newPage();
  const errors = watchErrors(page);
  await page.goto(`${server.url}/index.html`);
  const result = await page.evaluate(async ({ args, file }) => {
    const probe = await import("./detcheck.js?instance=probe");
    await probe.default({ module_or_path: "./detcheck_bg.wasm" });
    let overflowChecks = false;
    try {
      probe.detcheck_overflow_probe();
    } catch (e) {
      if (!(e instanceof WebAssembly.RuntimeError)) throw e;
      overflowChecks = true;
    }
    const m = await import("./detcheck.js");
    await m.default({ module_or_path: "./detcheck_bg.wasm" });
    const started = performance.now();
    const bytes = file
      ? new Uint8Array(await (await fetch("./recording.lrp")).arrayBuffer())
      : null;
    try {
      const code = bytes
        ? m.detcheck_run_with_file(args, overflowChecks, file, bytes)
        : m.detcheck_run(args, overflowChecks);
      return {
        code,
        stdout: m.detcheck_stdout(),
        stderr: m.detcheck_stderr(),
        ms: performance.now() - started,
        agent: navigator.userAgent,
      };
    } catch (e) {
      return { code: 101, stdout: "", stderr: `trap: ${e}\n`, ms: 0, agent: navigator.userAgent };
    }
  }, { args, file });
  process.stdout.write(result.stdout);
  process.stderr.write(result.stderr);
  if (errors.length > 0) {
    process.stderr.write(`errors in the page:\n${errors.join("\n")}\n`);
    if (result.code === 0) result.code = 101;
  }
  if (process.env.LAIGE_DETCHECK_WEB_VERBOSE) {
    process.stderr.write(`${result.agent}: ${result.ms.toFixed(0)} ms\n`);
  }
  process.exitCode = result.code;
} catch (e) {
  console.error(`detcheck-run.mjs: ${e.stack || e}`);
  process.exitCode = 101;
} finally {
  clearTimeout(timer);
  await browser?.close();
  await server?.close();
  rmSync(out, { recursive: true, force: true });
}
