#!/usr/bin/env node
// The engine examples' browser test (a step of `cargo xtask test`, through
// xtask/src/web.rs): `node examples-test.mjs EXAMPLES_DIR TICKS NAME=HASH...`.
//
// Serves EXAMPLES_DIR (the pages `cargo xtask web` built under
// target/web/examples/NAME/) and opens each NAME's page in headless
// Chromium (SwiftShader WebGL2) with `?ticks=TICKS`, no input (the games'
// bots play). Fails unless, for every page:
//   - the run ends by itself (window.laigeEnd) with exit code 0 after TICKS
//     ticks and at least one frame, without a console error, a page error
//     or a Rust panic (window.laigePanic);
//   - its final state hash equals HASH, the native headless example's after
//     the same ticks (`cargo run --example NAME -- --ticks TICKS`): the game
//     in V8 played bit for bit as natively;
//   - the canvas shows the game: its last frame, captured by the browser's
//     compositor, has at least MIN_COLOURS colours (a blank or clear-only
//     canvas has one).
// Each page's capture is saved as EXAMPLES_DIR/NAME/screenshot.png.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { launchChromium, serveDir, watchErrors } from "./chromium.mjs";

const [dir, ticksArg, ...expected] = process.argv.slice(2);
if (!dir || !ticksArg || expected.length === 0) {
  console.error("usage: examples-test.mjs EXAMPLES_DIR TICKS NAME=HASH...");
  process.exit(2);
}
const TICKS = Number(ticksArg);
const MIN_COLOURS = 3;
const TIMEOUT_MS = Number(process.env.LAIGE_WEB_TIMEOUT_MS || 120_000);

const fail = (why) => {
  console.error(`examples-test: FAILED: ${why}`);
  process.exitCode = 1;
};

let browser;
let server;
try {
  server = await serveDir(dir);
  browser = await launchChromium();
  for (const pair of expected) {
    const [name, hash] = pair.split("=");
    const page = await browser.newPage({ viewport: { width: 900, height: 560 } });
    const errors = watchErrors(page);
    const started = Date.now();
    await page.goto(`${server.url}/${name}/index.html?ticks=${TICKS}`);
    let end = null;
    for (;;) {
      const r = await page.evaluate(() => ({
        end: window.laigeEnd ?? null,
        panic: window.laigePanic ?? null,
      }));
      if (r.panic) throw new Error(`${name}: the page panicked: ${r.panic}`);
      if (errors.length > 0) throw new Error(`${name}: errors in the page:\n${errors.join("\n")}`);
      if (r.end) {
        end = r.end;
        break;
      }
      if (Date.now() - started > TIMEOUT_MS) {
        throw new Error(`${name}: the run did not end within ${TIMEOUT_MS} ms`);
      }
      await new Promise((ok) => setTimeout(ok, 100));
    }
    const secs = (Date.now() - started) / 1000;
    console.log(`examples-test: ${name}: ${end} (${secs.toFixed(1)} s)`);
    const m = /^exit (\d+) \(([^)]*)\); ticks (\d+); frames (\d+); state hash ([0-9a-f]{16})$/.exec(end);
    if (!m) {
      fail(`${name}: the end line is not a finished run's: ${end}`);
      continue;
    }
    const [, code, , ticks, frames, pageHash] = m;
    if (code !== "0") fail(`${name}: exit code ${code}`);
    if (Number(ticks) !== TICKS) fail(`${name}: ${ticks} ticks, not ${TICKS}`);
    if (Number(frames) < 1) fail(`${name}: no frame`);
    if (pageHash !== hash) {
      fail(`${name}: state hash ${pageHash} in the page, ${hash} natively after ${TICKS} ticks`);
    } else {
      console.log(`examples-test: ${name}: state hash ${pageHash} equals the native example's`);
    }
    const png = await page.locator("#laige").screenshot();
    writeFileSync(join(dir, name, "screenshot.png"), png);
    const colours = await page.evaluate(async (b64) => {
      const img = new Image();
      img.src = `data:image/png;base64,${b64}`;
      await img.decode();
      const c = document.createElement("canvas");
      c.width = img.width;
      c.height = img.height;
      const g = c.getContext("2d");
      g.drawImage(img, 0, 0);
      const data = g.getImageData(0, 0, c.width, c.height).data;
      const seen = new Set();
      for (let i = 0; i < data.length; i += 4) {
        seen.add((data[i] << 16) | (data[i + 1] << 8) | data[i + 2]);
        if (seen.size > 64) break;
      }
      return seen.size;
    }, png.toString("base64"));
    if (colours < MIN_COLOURS) {
      fail(`${name}: the canvas's last frame has ${colours} colour(s): nothing drawn`);
    } else {
      console.log(`examples-test: ${name}: the last frame has ${colours > 64 ? "more than 64" : colours} colours (saved ${name}/screenshot.png)`);
    }
    await page.close();
  }
} catch (e) {
  fail(e?.message ?? String(e));
} finally {
  await browser?.close();
  await server?.close();
}
