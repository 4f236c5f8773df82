#!/usr/bin/env node
// The page side of laige-bench's `web` area (one round):
// `node bench.mjs ENTITIES TICKS SITE_DIR...`.
//
// Each site (`cargo xtask web`'s target/web, and target/web-simd128 built
// with wasm SIMD128) is served cross-origin isolated (performance.now() in
// 5 µs steps) and opened in headless Chromium with `?bench=1` (no live
// demo); the page's `laige_bench_ticks` runs the demo headless and
// unpaced on each backend — once short (the module's compilation tiers
// up), then ENTITIES for TICKS ticks — and one JSON line per site and
// backend is printed:
//   {"site": DIR, "backend": ID, "ticks": N, "tick_p50_ns": N,
//    "tick_p99_ns": N, "samples": N, "state_hash": HEX, "crossOriginIsolated": BOOL}
// Exit 1 when a page fails (an error, a panic).
import process from "node:process";
import { launchChromium, serveDir } from "./chromium.mjs";

const [entitiesArg, ticksArg, ...sites] = process.argv.slice(2);
if (!entitiesArg || !ticksArg || sites.length === 0) {
  console.error("usage: bench.mjs ENTITIES TICKS SITE_DIR...");
  process.exit(2);
}
const BACKENDS = ["fixed_point_16_16", "float_pinned_32"];

let browser;
const servers = [];
try {
  browser = await launchChromium();
  for (const site of sites) {
    const server = await serveDir(site, {}, { isolated: true });
    servers.push(server);
    const page = await browser.newPage();
    const errors = [];
    page.on("console", (m) => {
      if (m.type() === "error") errors.push(m.text());
    });
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(`${server.url}/index.html?bench=1`);
    await page.waitForFunction(() => window.laigeDemo || window.laigePanic, null, { timeout: 60_000 });
    for (const backend of BACKENDS) {
      const run = await page.evaluate(
        ([b, e, t]) => {
          window.laigeDemo.laige_bench_ticks(b, 1000, 60);
          return {
            ...JSON.parse(window.laigeDemo.laige_bench_ticks(b, e, t)),
            crossOriginIsolated: window.crossOriginIsolated,
            panic: window.laigePanic ?? null,
          };
        },
        [backend, Number(entitiesArg), Number(ticksArg)],
      );
      if (run.panic || run.error || errors.length > 0) {
        throw new Error(`${site} ${backend}: ${run.panic ?? run.error ?? errors.join("\n")}`);
      }
      delete run.panic;
      console.log(JSON.stringify({ site, backend, ...run }));
    }
    await page.close();
  }
} catch (e) {
  console.error(`bench.mjs: ${e.message || e}`);
  process.exitCode = 1;
} finally {
  await browser?.close();
  for (const s of servers) await s.close();
}
