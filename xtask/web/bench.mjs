#!/usr/bin/env node
// The page side of laige-bench's `web` area (one round):
// `node bench.mjs ENTITIES TICKS SITE_DIR...`.
//
// Each site (`cargo xtask web`'s target/web, built with wasm SIMD128, and
// target/web-plain without it) is served cross-origin isolated (performance.now() in
// 5 µs steps) and opened in headless Chromium with `?bench=1` (no live
// demo); the page's `laige_bench_ticks` runs the demo headless and
// unpaced on each backend — once short (the module's compilation tiers
// up), then ENTITIES for TICKS ticks — and one JSON line per site and
// backend is printed:
//   {"site": DIR, "backend": ID, "ticks": N, "tick_p50_ns": N,
//    "tick_p99_ns": N, "samples": N, "state_hash": HEX, "crossOriginIsolated": BOOL}
// Then the first site's live demo (ENTITIES sprites, paced by the page's
// animation frames, SwiftShader WebGL2) in a fresh page: the time from
// navigation start to the first presented frame, and frames per second
// over LIVE_SECONDS after its first 60 frames:
//   {"site": DIR, "live": true, "first_present_ms": N, "fps": N, "frames": N}
// Exit 1 when a page fails (an error, a panic).
import process from "node:process";
import { launchChromium, serveDir, watchErrors } from "./chromium.mjs";

const [entitiesArg, ticksArg, ...sites] = process.argv.slice(2);
if (!entitiesArg || !ticksArg || sites.length === 0) {
  console.error("usage: bench.mjs ENTITIES TICKS SITE_DIR...");
  process.exit(2);
}
const BACKENDS = ["fixed_point_16_16", "float_pinned_32"];
const LIVE_SECONDS = 3;

let browser;
const servers = [];
try {
  browser = await launchChromium();
  for (const site of sites) {
    const server = await serveDir(site, {}, { isolated: true });
    servers.push(server);
    const page = await browser.newPage();
    const errors = watchErrors(page);
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
  const live = await browser.newPage({ viewport: { width: 900, height: 720 } });
  const errors = watchErrors(live);
  await live.goto(`${servers[0].url}/index.html?entities=${Number(entitiesArg)}`);
  const status = () =>
    live.evaluate(() => ({
      s: window.laigeDemo?.laige_status ? JSON.parse(window.laigeDemo.laige_status()) : null,
      panic: window.laigePanic ?? null,
      now: performance.now(),
    }));
  let from = null;
  for (const deadline = Date.now() + 120_000; ; ) {
    const r = await status();
    if (r.panic || errors.length > 0) throw new Error(`live page: ${r.panic ?? errors.join("\n")}`);
    if (r.s?.end) throw new Error(`live page: the run ended: ${r.s.end}`);
    if (!from && r.s && r.s.frames >= 60) from = r;
    if (from && r.now - from.now >= LIVE_SECONDS * 1000) {
      console.log(JSON.stringify({
        site: sites[0],
        live: true,
        first_present_ms: r.s.first_present_ms,
        fps: ((r.s.frames - from.s.frames) * 1000) / (r.now - from.now),
        frames: r.s.frames,
      }));
      break;
    }
    if (Date.now() > deadline) throw new Error("live page: no 60 frames within 120 s");
    await new Promise((ok) => setTimeout(ok, 50));
  }
  await live.close();
} catch (e) {
  console.error(`bench.mjs: ${e.message || e}`);
  process.exitCode = 1;
} finally {
  await browser?.close();
  for (const s of servers) await s.close();
}
