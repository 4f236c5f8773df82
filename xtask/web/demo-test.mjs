#!/usr/bin/env node
// The demo page's browser test (a step of `cargo xtask test`, through
// xtask/src/web.rs): `node demo-test.mjs SITE_DIR NATIVE_HASH TICK`.
//
// Serves the site `cargo xtask web` built, opens it in headless Chromium
// (SwiftShader WebGL2) with the native demo's scripted session
// (`?script=1`), and fails unless
//   - the page runs at least 300 frames without a console error, a page
//     error or a Rust panic (the module's panic hook sets
//     `window.laigePanic` with the message; it is printed);
//   - the canvas holds a WebGL2 context whose last frame has sprites on it
//     (pixels that are not the clear colour);
//   - the state hash the page recorded at TICK equals NATIVE_HASH (the
//     native headless demo's, same script, fixed point).
// It saves a screenshot of the canvas as SITE_DIR/demo-screenshot.png and
// prints the figures: time from navigation start to the first presented
// frame, frames per second of the 10k swarm, dropped ticks.
//
// With NATIVE_DEMO (the native laige-demo binary) it then compares one
// frame: the page runs the same script to TICK without interpolation and
// stops (its last frame, at some tick T ≥ TICK, stays on the canvas and is
// read back with readPixels); the native demo renders frame T of an
// unpaced run (frame k shows tick k) offscreen on EGL with the same canvas
// size and writes it as a PPM; below the HUD (whose numbers differ: fps,
// drops) the two must agree within the rasterizers' tolerance
// (PIXEL_TOLERANCE below; the measured difference is printed).
//
// And it checks input: on a page without a script, pointer moves and a B
// press dispatched through the DevTools protocol (playwright's mouse and
// keyboard: Input.dispatchMouseEvent / dispatchKeyEvent) reach the
// simulation (a burst spawns); the page's input log (every tick's
// delivered events) played by the native demo (`--input-log`) gives the
// page's state hash at a later tick, and the same log without the tick of
// the key press does not (a dropped event is caught).
//
// And replays both ways: a page run recorded in memory (`record=1`) and
// offered as a Blob download is downloaded (the page's link clicked) and
// verified by the native demo (`--replay`: every recorded state hash, and
// the final hash equals the page's); a native recording (`--record`) is
// served and played back in a page (`replay=URL`): verified, with the
// native run's final state hash (and the two recordings of the same
// scripted session are byte-identical); a torn copy and a page with another
// entity count are not verified (the negative controls).
//
// And that a Rust panic reaches the test: a page asked to panic
// (`panic_at=N`) sets window.laigePanic and logs console.error with the
// panic's message.
import { execFileSync } from "node:child_process";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { launchChromium, serveDir, watchErrors } from "./chromium.mjs";

const [site, nativeHash, tickArg, nativeDemo] = process.argv.slice(2);
if (!site || !nativeHash || !tickArg) {
  console.error("usage: demo-test.mjs SITE_DIR NATIVE_HASH TICK [NATIVE_DEMO]");
  process.exit(2);
}
const TICK = Number(tickArg);
const MIN_FRAMES = 300;
// The seconds of scripted input: past any frame of the comparison (a run
// limited to TICK ticks ends on a frame at most max_catch_up ticks later).
const SCRIPT_SECONDS = Math.ceil(TICK / 60) + 1;
// The per-pixel comparison's tolerance: a channel may differ by at most
// CHANNEL (SwiftShader and llvmpipe round colours alike but place a
// sprite's edge differently when it falls within a fraction of a pixel
// center), and at most SHARE of the compared pixels may differ beyond it.
// Measured here: 0.67 % of the pixels below the HUD beyond 2/255 between
// the page and the native frame of the same tick, against 10.4 % between
// two native frames one tick apart.
const PIXEL_TOLERANCE = { channel: 2, share: 0.02 };
// Rows from the top the comparison skips: the HUD panel (its text holds
// wall-clock figures).
const HUD_ROWS = 120;
// Sprites of the input check's page (the property does not need 10k; a
// small swarm runs much faster under SwiftShader).
const INPUT_ENTITIES = 1000;
// The entities of the replay checks' runs (the property does not need
// 10k; the native --replay and the page's playback need the same count).
const REPLAY_ENTITIES = 1000;
// The scripted session's length of a native `laige-demo --ticks N` run
// (`laige_demo::args::DEFAULT_SECONDS`): the recorded page runs the same
// script, so the two recordings can be compared byte for byte.
const NATIVE_SCRIPT_SECONDS = 5;
const TIMEOUT_MS = Number(process.env.LAIGE_WEB_TIMEOUT_MS || 240_000);

const fail = (why) => {
  console.error(`demo-test: FAILED: ${why}`);
  process.exitCode = 1;
};

let browser;
let server;
try {
  server = await serveDir(site);
  browser = await launchChromium();
  const page = await browser.newPage({ viewport: { width: 900, height: 720 } });
  const errors = watchErrors(page);
  const started = Date.now();
  await page.goto(`${server.url}/index.html?script=${SCRIPT_SECONDS}&hash_every=60`);
  const read = () =>
    page.evaluate(() => ({
      status: window.laigeDemo?.laige_status ? JSON.parse(window.laigeDemo.laige_status()) : null,
      panic: window.laigePanic ?? null,
      now: performance.now(),
    }));
  let first = null; // { frames, now } once 60 frames ran (the fps window's start)
  let last = null;
  for (;;) {
    const r = await read();
    if (r.panic) throw new Error(`the page panicked: ${r.panic}`);
    if (errors.length > 0) throw new Error(`errors in the page:\n${errors.join("\n")}`);
    const s = r.status;
    if (s?.end) throw new Error(`the run ended early: ${s.end}`);
    if (s && s.frames >= 60 && !first) first = { frames: s.frames, now: r.now };
    last = { ...r };
    if (s && s.frames >= MIN_FRAMES && s.ticks >= TICK) break;
    if (Date.now() - started > TIMEOUT_MS) {
      throw new Error(`no ${MIN_FRAMES} frames and ${TICK} ticks after ${TIMEOUT_MS} ms: ${JSON.stringify(s)}`);
    }
    await new Promise((ok) => setTimeout(ok, 100));
  }
  const s = last.status;
  const fps = first && last.now > first.now
    ? ((s.frames - first.frames) * 1000) / (last.now - first.now)
    : NaN;
  const pixels = await page.evaluate(() => {
    const canvas = document.getElementById("laige");
    const gl = canvas.getContext("webgl2");
    if (!gl) return null;
    const { width, height } = canvas;
    const data = new Uint8Array(width * height * 4);
    gl.readPixels(0, 0, width, height, gl.RGBA, gl.UNSIGNED_BYTE, data);
    // The background: the bottom-right pixel (the arena's corner, never
    // under the HUD); a drawn swarm covers many pixels of other colours.
    const bg = data.subarray((width - 1) * 4, width * 4);
    let lit = 0;
    for (let i = 0; i < data.length; i += 4) {
      if (data[i] !== bg[0] || data[i + 1] !== bg[1] || data[i + 2] !== bg[2]) lit += 1;
    }
    return { width, height, lit };
  });
  const hash = await page.evaluate((t) => window.laigeDemo.laige_hash_at(t) ?? null, TICK);
  const shot = join(site, "demo-screenshot.png");
  await page.locator("#laige").screenshot({ path: shot });
  const agent = await page.evaluate(() => navigator.userAgent);
  console.log(`demo-test: ${agent}`);
  console.log(
    `demo-test: ${s.frames} frames, ${s.ticks} ticks, ${s.entities} entities; ` +
      `first frame presented ${s.first_present_ms} ms after navigation start; ` +
      `${fps.toFixed(1)} frames/s (frames 60..${s.frames}); dropped ticks ${s.dropped_ticks}, ` +
      `render-dropped frames ${s.render_dropped}`,
  );
  console.log(`demo-test: screenshot ${shot}`);
  if (!pixels) fail("the canvas has no WebGL2 context");
  else {
    console.log(`demo-test: canvas ${pixels.width}x${pixels.height}, ${pixels.lit} pixels not the background`);
    if (pixels.lit < 1000) fail(`only ${pixels.lit} lit pixels: the swarm is not drawn`);
  }
  console.log(`demo-test: state hash at tick ${TICK}: page ${hash}, native ${nativeHash}`);
  if (hash !== nativeHash) fail(`the page's state hash at tick ${TICK} is ${hash}, the native demo's ${nativeHash}`);
  if (errors.length > 0) fail(`errors in the page:\n${errors.join("\n")}`);
  await panicReported(browser);
  if (nativeDemo) {
    await compareFrame(browser, errors);
    await inputThroughCdp(browser, errors);
    await replaysBothWays(browser, errors);
  }
} catch (e) {
  fail(e.message || String(e));
} finally {
  await browser?.close();
  await server?.close();
}

/// The one-frame comparison with the native offscreen render (see the top).
async function compareFrame(browser, errors) {
  const page = await browser.newPage({ viewport: { width: 900, height: 720 } });
  watchErrors(page, errors);
  await page.goto(
    `${server.url}/index.html?script=${SCRIPT_SECONDS}&ticks=${TICK}&interpolate=0&hash_every=0`,
  );
  const started = Date.now();
  for (;;) {
    const r = await page.evaluate(() => ({
      end: window.laigeEnd ?? null,
      panic: window.laigePanic ?? null,
    }));
    if (r.panic) throw new Error(`the page panicked: ${r.panic}`);
    if (r.end) break;
    if (Date.now() - started > TIMEOUT_MS) throw new Error(`the ${TICK}-tick run did not end`);
    await new Promise((ok) => setTimeout(ok, 100));
  }
  const web = await page.evaluate(() => {
    const canvas = document.getElementById("laige");
    const gl = canvas.getContext("webgl2");
    const { width, height } = canvas;
    const data = new Uint8Array(width * height * 4);
    gl.readPixels(0, 0, width, height, gl.RGBA, gl.UNSIGNED_BYTE, data);
    return {
      width,
      height,
      rgba: Array.from(data),
      status: JSON.parse(window.laigeDemo.laige_status()),
    };
  });
  await page.close();
  const tick = web.status.ticks;
  const config = join(site, "compare.toml");
  writeFileSync(
    config,
    `[render]\nwindow_width = ${web.width}\nwindow_height = ${web.height}\ninterpolation = false\n`,
  );
  const ppm = join(site, "native-frame.ppm");
  execFileSync(nativeDemo, [
    "--gl", "--unpaced", "--quiet", "--frames", String(tick), "--config", config,
    "--screenshot", ppm, "--screenshot-frame", String(tick),
  ], { stdio: ["ignore", "ignore", "pipe"] });
  const native = parsePpm(readFileSync(ppm));
  if (native.width !== web.width || native.height !== web.height) {
    fail(`native frame ${native.width}x${native.height}, page ${web.width}x${web.height}`);
    return;
  }
  let compared = 0;
  let beyond = 0;
  let maxDiff = 0;
  let differing = 0;
  for (let y = HUD_ROWS; y < web.height; y += 1) {
    // The page's rows come bottom first (GL), the PPM's top first.
    const webRow = (web.height - 1 - y) * web.width * 4;
    const nativeRow = y * web.width * 3;
    for (let x = 0; x < web.width; x += 1) {
      let d = 0;
      for (let c = 0; c < 3; c += 1) {
        d = Math.max(d, Math.abs(web.rgba[webRow + x * 4 + c] - native.rgb[nativeRow + x * 3 + c]));
      }
      compared += 1;
      if (d > 0) differing += 1;
      if (d > PIXEL_TOLERANCE.channel) beyond += 1;
      maxDiff = Math.max(maxDiff, d);
    }
  }
  const share = beyond / compared;
  console.log(
    `demo-test: frame at tick ${tick} (no interpolation), page vs native EGL: ${compared} pixels ` +
      `compared, ${differing} differ (max channel difference ${maxDiff}), ` +
      `${beyond} (${(share * 100).toFixed(3)} %) beyond ${PIXEL_TOLERANCE.channel}/255 ` +
      `(tolerance ${(PIXEL_TOLERANCE.share * 100).toFixed(1)} %)`,
  );
  if (share > PIXEL_TOLERANCE.share) {
    fail(`the page's frame at tick ${tick} differs from the native render in ${beyond} pixels`);
  }
}

/// A binary PPM (P6, 8-bit): `{ width, height, rgb }`.
function parsePpm(bytes) {
  let pos = 0;
  const token = () => {
    while (/\s/.test(String.fromCharCode(bytes[pos]))) pos += 1;
    const start = pos;
    while (!/\s/.test(String.fromCharCode(bytes[pos]))) pos += 1;
    return bytes.subarray(start, pos).toString();
  };
  if (token() !== "P6") throw new Error("not a binary PPM");
  const width = Number(token());
  const height = Number(token());
  token(); // maxval 255
  pos += 1;
  return { width, height, rgb: bytes.subarray(pos) };
}


/// The demo's state hash line of a native run with `args`.
function nativeRun(args) {
  const out = execFileSync(nativeDemo, ["--unpaced", "--quiet", ...args], {
    stdio: ["ignore", "pipe", "pipe"],
  }).toString();
  const line = out.split("\n").find((l) => l.trim().startsWith("state hash: "));
  if (!line) throw new Error(`no state hash in the native demo's report: ${out}`);
  return line.trim().slice("state hash: ".length);
}

/// CDP key and pointer input against the native playback of its log.
async function inputThroughCdp(browser, errors) {
  const page = await browser.newPage({ viewport: { width: 900, height: 720 } });
  watchErrors(page, errors);
  await page.goto(`${server.url}/index.html?entities=${INPUT_ENTITIES}&hash_every=30`);
  const status = () =>
    page.evaluate(() => (window.laigeDemo ? JSON.parse(window.laigeDemo.laige_status()) : null));
  const until = async (pred, what) => {
    const started = Date.now();
    for (;;) {
      const panic = await page.evaluate(() => window.laigePanic ?? null);
      if (panic) throw new Error(`the page panicked: ${panic}`);
      const s = await status();
      if (s && pred(s)) return s;
      if (Date.now() - started > TIMEOUT_MS) throw new Error(`input check: no ${what}`);
      await new Promise((ok) => setTimeout(ok, 50));
    }
  };
  await until((s) => s.frames >= 10, "10 frames");
  await page.focus("#laige");
  const box = await page.locator("#laige").boundingBox();
  await page.mouse.move(box.x + 200, box.y + 150);
  await page.waitForTimeout(300);
  await page.mouse.move(box.x + 600, box.y + 450, { steps: 4 });
  await page.keyboard.press("KeyB");
  await page.waitForTimeout(300);
  await page.mouse.move(box.x + 120, box.y + 500, { steps: 4 });
  await page.waitForTimeout(200);
  const after = await status();
  const target = (Math.floor(after.ticks / 30) + 2) * 30;
  const s = await until((x) => x.ticks >= target, `tick ${target}`);
  const hash = await page.evaluate((t) => window.laigeDemo.laige_hash_at(t) ?? null, target);
  const log = await page.evaluate(() => window.laigeDemo.laige_input_log());
  await page.close();
  const lines = log.split("\n").filter((l) => l.length > 0);
  console.log(
    `demo-test: input through CDP: ${lines.length} ticks with input, ${s.entities} entities ` +
      `(${INPUT_ENTITIES} + the attractor + a burst of 1000 expected)`,
  );
  if (s.entities !== INPUT_ENTITIES + 1 + 1000) fail("the B press did not spawn a burst");
  if (lines.length < 3) {
    fail(`only ${lines.length} ticks with input: the pointer moves did not reach the simulation`);
    return;
  }
  const file = join(site, "input.log");
  writeFileSync(file, log);
  const args = ["--entities", String(INPUT_ENTITIES), "--ticks", String(target), "--input-log", file];
  const native = nativeRun(args);
  console.log(`demo-test: input: state hash at tick ${target}: page ${hash}, native playback ${native}`);
  if (hash !== native) fail(`after CDP input the page's hash at tick ${target} is ${hash}, the native playback's ${native}`);
  // The tick whose events hold the B press: without it no burst spawns,
  // so the state must differ. (Dropping an arbitrary tick's events can
  // leave the state as it was: a pointer move the next one overrides.)
  const pressLine = lines.findIndex(hasKeyPress);
  if (pressLine < 0) {
    fail(`no tick of the page's input log holds a key press: ${log}`);
    return;
  }
  const dropped = lines.filter((_, i) => i !== pressLine).join("\n") + "\n";
  writeFileSync(file, dropped);
  const without = nativeRun(args);
  console.log(
    `demo-test: input: the same log without tick ${lines[pressLine].split(" ")[0]}'s events (the key press): ${without}`,
  );
  if (without === hash) fail("a dropped input event went unnoticed");
}

/// A page run recorded and downloaded, verified natively; a native
/// recording verified in a page (see the top).
async function replaysBothWays(browser, errors) {
  const watch = (page) => watchErrors(page, errors);
  const waitFor = async (page, expr, what) => {
    const started = Date.now();
    for (;;) {
      const r = await page.evaluate(
        (e) => ({ value: window[e] ?? null, panic: window.laigePanic ?? null }),
        expr,
      );
      if (r.panic) throw new Error(`the page panicked: ${r.panic}`);
      if (r.value) return r.value;
      if (Date.now() - started > TIMEOUT_MS) throw new Error(`replay check: no ${what}`);
      await new Promise((ok) => setTimeout(ok, 100));
    }
  };
  // Page → native: record, download, --replay.
  const page = await browser.newPage({ viewport: { width: 900, height: 720 } });
  watch(page);
  await page.goto(
    `${server.url}/index.html?entities=${REPLAY_ENTITIES}&script=${NATIVE_SCRIPT_SECONDS}` +
      `&ticks=${TICK}&record=1&hash_every=0`,
  );
  const end = await waitFor(page, "laigeEnd", "end of the recorded run");
  await page.locator("#download:not([hidden])").waitFor({ timeout: 30_000 });
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.locator("#download").click(),
  ]);
  const file = join(site, "page-recording.lrp");
  await download.saveAs(file);
  await page.close();
  const pageHash = /state hash ([0-9a-f]{16})/.exec(end)?.[1];
  // The run ends on the frame that reaches TICK, which may run a few
  // ticks past it (a frame's catch-up): the native recording below runs
  // as many ticks as the page did.
  const pageTicks = Number(/ticks (\d+)/.exec(end)?.[1] ?? TICK);
  console.log(
    `demo-test: replay: the page's recorded run: ${end}; downloaded ${download.suggestedFilename()} ` +
      `(${statSync(file).size} bytes)`,
  );
  let out;
  try {
    out = execFileSync(nativeDemo, ["--quiet", "--entities", String(REPLAY_ENTITIES), "--replay", file], {
      stdio: ["ignore", "pipe", "pipe"],
    }).toString();
  } catch (e) {
    fail(`the native demo did not verify the page's recording: ${e.stdout}${e.stderr}`);
    return;
  }
  const verdict = out.split("\n").find((l) => l.includes("replay verified")) ?? "";
  const nativeReplayHash = /state hash:\s+([0-9a-f]{16})/.exec(out)?.[1];
  console.log(
    `demo-test: replay: page recording played natively: ${verdict.trim()}; final state hash ` +
      `native ${nativeReplayHash}, page ${pageHash}`,
  );
  if (!verdict) fail(`the native replay of the page's recording did not verify: ${out}`);
  if (!pageHash || pageHash !== nativeReplayHash) {
    fail(`the page's final state hash ${pageHash} differs from its native replay's ${nativeReplayHash}`);
  }
  // Native → page: --record, served, replay=URL.
  const nativeFile = join(site, "native-recording.lrp");
  const nativeHash = nativeRun([
    "--entities", String(REPLAY_ENTITIES), "--ticks", String(pageTicks), "--record", nativeFile,
  ]);
  const bytes = readFileSync(nativeFile);
  // The same scripted session to the same tick: the same file, byte for
  // byte, and the same final state.
  const same = Buffer.compare(bytes, readFileSync(file)) === 0;
  console.log(`demo-test: replay: the page's and the native recording are ${same ? "byte-identical" : "DIFFERENT"}`);
  if (!same) fail("the page's recording differs from the native recording of the same session");
  if (nativeHash !== pageHash) {
    fail(`the native run of ${pageTicks} ticks ends on ${nativeHash}, the page's on ${pageHash}`);
  }
  writeFileSync(join(site, "native-torn.lrp"), bytes.subarray(0, Math.floor(bytes.length * 0.6)));
  const playInPage = async (name, entities) => {
    const p = await browser.newPage();
    watch(p);
    await p.goto(`${server.url}/index.html?entities=${entities}&replay=${name}`);
    const v = await waitFor(p, "laigeReplay", `verdict of ${name}`);
    await p.close();
    return v;
  };
  const inPage = await playInPage("native-recording.lrp", REPLAY_ENTITIES);
  console.log(
    `demo-test: replay: native recording (${bytes.length} bytes) played in the page: ` +
      `${inPage.verdict ?? inPage.error}; final state hash page ${inPage.state_hash}, native ${nativeHash}`,
  );
  if (!inPage.verified) fail(`the page did not verify the native recording: ${JSON.stringify(inPage)}`);
  if (inPage.state_hash !== nativeHash) {
    fail(`the page's playback ends on ${inPage.state_hash}, the native recorded run on ${nativeHash}`);
  }
  const torn = await playInPage("native-torn.lrp", REPLAY_ENTITIES);
  const other = await playInPage("native-recording.lrp", REPLAY_ENTITIES - 1);
  console.log(
    `demo-test: replay: negative controls in the page: torn copy -> ${torn.verdict ?? torn.error} ` +
      `(exit ${torn.exit_code ?? "-"}); entities=${REPLAY_ENTITIES - 1} -> ${other.verdict ?? other.error}`,
  );
  if (torn.verified || other.verified) fail("a torn or mismatched replay was reported verified in the page");
}

/// Whether an input log line (`TICK HEX`, the engine's tick-input
/// encoding: version, u32 count, then per event an i64 time, a tag and the
/// kind's fields) holds a key press.
function hasKeyPress(line) {
  const bytes = Buffer.from(line.split(" ")[1] ?? "", "hex");
  const count = bytes.length >= 5 ? bytes.readUInt32LE(1) : 0;
  const size = { 0: 3, 1: 9, 2: 12, 3: 8 };
  let pos = 5;
  for (let i = 0; i < count && pos + 9 <= bytes.length; i += 1) {
    const tag = bytes[pos + 8];
    if (tag === 0 && bytes[pos + 11] === 1) return true;
    pos += 9 + (size[tag] ?? Infinity);
  }
  return false;
}

/// A panic in the page is reported with its message (the panic hook).
async function panicReported(browser) {
  const page = await browser.newPage();
  const seen = [];
  page.on("console", (m) => {
    if (m.type() === "error") seen.push(m.text());
  });
  await page.goto(`${server.url}/index.html?entities=100&panic_at=30`);
  const started = Date.now();
  let panic = null;
  while (!panic && Date.now() - started < 30_000) {
    panic = await page.evaluate(() => window.laigePanic ?? null);
    if (!panic) await new Promise((ok) => setTimeout(ok, 50));
  }
  await page.close();
  console.log(`demo-test: a page asked to panic reported: ${panic}`);
  if (!panic || !panic.includes("panic at tick 30") || !seen.some((e) => e.includes("panic at tick 30"))) {
    fail("a panic in the page did not reach window.laigePanic and console.error with its message");
  }
}
