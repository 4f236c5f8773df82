#!/usr/bin/env node
// The browser half of the WebRTC sessions (a step of `cargo xtask web
// --test`, through xtask/src/web.rs):
// `node webrtc-test.mjs SITE_DIR SIGNALING_BIN NATIVE_DEMO XTASK`.
//
// Real WebRTC over loopback: a matchbox signaling server (SIGNALING_BIN,
// laige-testkit's `laige-signaling`, one per session: its full mesh
// introduces every peer to every other one), the demo's page in headless
// Chromium joining it (`?signal=ws://…&players=2`) and the native demo
// (NATIVE_DEMO `--net webrtc`, built with its `webrtc` feature); XTASK
// is the xtask binary (its `desync-diff`). Chromium
// hides host candidates behind mDNS names unless told not to, and this
// machine has no mDNS: the launch turns that off. One Chromium holds every
// page; at most two pages play at once.
//
// It fails unless
//   (a) two pages play TICKS ticks (fixed point) and agree on the state
//       hash of every confirmed tick 1..=COMPARED (each page's confirmed
//       hashes, `laige_net_hashes()`, read once its run ended);
//   (b) a page and a native peer do the same (the native `--net-hashes`
//       file against the page's), on fixed point and on pinned floats
//       (`backend=float_pinned_32`: the page starts it only because the
//       supported-pairs table marks wasm32-unknown-unknown and x86_64
//       both ✓ — the refusal is laige-demo's unit test);
//   (c) a page that closes mid-session ends the native peer with exit
//       code 10 (the peer named as disconnected) within DISCONNECT_MS;
//   (d) a native peer built to diverge (LAIGE_DEMO_PERTURB_TICK) is caught
//       and reported to the field: the native peer ends with exit code 11
//       and writes its desynced tick's dump (`--dump-dir`), the page's end
//       names the desync and the page hands over its dump of the same tick
//       (`laige_desync_dump()`), and `xtask desync-diff` over the two names
//       the nudged value: `demo.velocity`'s field `0.y`, with the two
//       sides' values;
//   (e) a page and a native peer whose datagrams both go through
//       laige-net's fault wrapper (the page's `fault_latency_ms=30&
//       fault_jitter_ms=15&fault_loss_per_mille=50`, the native
//       `--fault-latency-ms 30 --fault-jitter-ms 15
//       --fault-loss-per-mille 50`) agree on every confirmed tick
//       1..=COMPARED, with rollbacks;
//   (f) a page whose signaling server is not there ends its run with
//       `net/signaling_failed` (natively exit code 12) within
//       NO_SIGNAL_MS, never waiting for the room's timeout.
// It prints each session's line (ticks, rollbacks, rtt, confirmed
// hashes, the end) and the step's wall time.
import { spawn, spawnSync } from "node:child_process";
import { createServer } from "node:net";
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { launchChromium, serveDir, watchErrors } from "./chromium.mjs";

const [site, signalingBin, nativeDemo, xtaskBin] = process.argv.slice(2);
if (!site || !signalingBin || !nativeDemo || !xtaskBin) {
  console.error("usage: webrtc-test.mjs SITE_DIR SIGNALING_BIN NATIVE_DEMO XTASK");
  process.exit(2);
}
// Ticks each peer plays and the confirmed ticks compared (the last ones
// may be unconfirmed when the other peer's run ended first).
const TICKS = 1260;
const COMPARED = 1200;
const PINNED_TICKS = 600;
const PINNED_COMPARED = 540;
const ENTITIES = 500;
// The longest a session may take (1260 ticks at 60 Hz are 21 s).
const SESSION_MS = 90_000;
// The native peer's end after the page closed: GGRS's disconnect timeout
// (2 s) and the notice, with room for a loaded machine.
const DISCONNECT_MS = 15_000;
const PERTURB_TICK = 300;
// A page with no signaling server ends well before the room's 30 s
// timeout.
const NO_SIGNAL_MS = 15_000;
const FAULTS = { latency: 30, jitter: 15, lossPerMille: 50 };

const started = Date.now();
const scratch = mkdtempSync(join(tmpdir(), "laige-webrtc-"));
writeFileSync(join(scratch, "pinned.toml"), '[determinism]\nmath = "float_pinned_32"\n');
const failures = [];
const fail = (what) => {
  failures.push(what);
  console.error(`webrtc test: FAIL ${what}`);
};

// A signaling server of its own for one session: its URL and a stop.
function signaling() {
  const child = spawn(signalingBin, ["0"], { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((ok, bad) => {
    let text = "";
    const timer = setTimeout(() => bad(new Error("no line from laige-signaling in 10 s")), 10_000);
    child.stdout.on("data", (d) => {
      text += d;
      const m = text.match(/ws:\/\/127\.0\.0\.1:(\d+)/);
      if (m) {
        clearTimeout(timer);
        ok({ url: m[0], stop: () => child.kill() });
      }
    });
    child.on("exit", (code) => bad(new Error(`laige-signaling exited (${code}): ${text}`)));
  });
}

// A native peer: `{ done: Promise<{code, out}>, hashesFile }`.
function native(signal, name, { ticks = TICKS, env = {}, config, faults, dumpDir } = {}) {
  const hashesFile = join(scratch, `${name}.txt`);
  const args = ["--entities", String(ENTITIES), "--ticks", String(ticks), "--quiet",
    "--net-hashes", hashesFile, "--net", "webrtc", "--signal", `${signal}/laige`, "--players", "2"];
  if (config) args.unshift("--config", config);
  if (dumpDir) args.push("--dump-dir", dumpDir);
  if (faults) {
    args.push("--fault-latency-ms", String(faults.latency), "--fault-jitter-ms", String(faults.jitter),
      "--fault-loss-per-mille", String(faults.lossPerMille));
  }
  const child = spawn(nativeDemo, args, {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, RUST_LOG: "warn", ...env },
  });
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (out += d));
  const done = new Promise((ok) => child.on("exit", (code) => ok({ code, out })));
  return { done, hashesFile, child };
}

function parseHashes(text) {
  const m = new Map();
  for (const line of text.split("\n")) {
    const [t, h] = line.trim().split(/\s+/);
    if (t && h) m.set(Number(t), h);
  }
  return m;
}

// Every tick 1..=n confirmed by both and equal; the first problem or null.
function disagreement(a, b, n) {
  for (let t = 1; t <= n; t++) {
    const x = a.get(t);
    const y = b.get(t);
    if (x === undefined || y === undefined) return `tick ${t} not confirmed: ${x} ${y}`;
    if (x !== y) return `tick ${t}: ${x} vs ${y}`;
  }
  return null;
}

const browser = await launchChromium({
  args: [
    "--disable-features=WebRtcHideLocalIpsWithMdns",
    // Every page keeps its animation frames (none is the focused tab).
    "--disable-background-timer-throttling",
    "--disable-renderer-backgrounding",
    "--disable-backgrounding-occluded-windows",
  ],
});
const server = await serveDir(site);
// A page joining `signal`'s room with `query` more options. Each page has
// a browser context (a window) of its own: a page behind another one in
// the same window is hidden and gets no animation frames.
async function openPage(signal, query, name, room = "/laige") {
  const context = await browser.newContext({ viewport: { width: 900, height: 700 } });
  const page = await context.newPage();
  const errors = watchErrors(page);
  const url = `${server.url}/?signal=${signal}${room}&players=2&entities=${ENTITIES}&hash_every=0&${query}`;
  await page.goto(url);
  return { page, errors, name };
}

// The page's end line once its run ended (null after `ms`).
async function pageEnd(p, ms) {
  try {
    await p.page.waitForFunction(() => window.laigeEnd || window.laigePanic, null, {
      timeout: ms,
      polling: 250,
    });
  } catch {
    return null;
  }
  return p.page.evaluate(() => window.laigePanic ?? window.laigeEnd);
}

async function pageHashes(p) {
  return parseHashes(await p.page.evaluate(() => window.laigeDemo.laige_net_hashes()));
}

function report(what, line) {
  for (const l of String(line).split("\n")) {
    if (/^(exit |exit:|net:|net end:|laige-demo: a changed build)/.test(l.trim())) {
      console.log(`webrtc test: ${what}: ${l.trim()}`);
    }
  }
}

function checkErrors(p) {
  // A page whose session ended by the other's leaving logs nothing as an
  // error; a panic or a console error fails the test.
  if (p.errors.length) fail(`${p.name}: console/page errors: ${p.errors.slice(0, 3).join(" | ")}`);
}

// (a) two pages.
async function twoPages() {
  const sig = await signaling();
  try {
    const a = await openPage(sig.url, `ticks=${TICKS}`, "page a");
    const b = await openPage(sig.url, `ticks=${TICKS}`, "page b");
    const [ea, eb] = await Promise.all([pageEnd(a, SESSION_MS), pageEnd(b, SESSION_MS)]);
    report("two pages, page a", ea);
    report("two pages, page b", eb);
    if (!ea || !eb) return fail(`two pages: a run did not end in ${SESSION_MS} ms: ${ea} / ${eb}`);
    const d = disagreement(await pageHashes(a), await pageHashes(b), COMPARED);
    if (d) fail(`two pages disagree: ${d}`);
    else console.log(`webrtc test: two pages agree on every confirmed tick 1..=${COMPARED}`);
    checkErrors(a);
    checkErrors(b);
    await a.page.context().close();
    await b.page.context().close();
  } finally {
    sig.stop();
  }
}

// (b) a page and a native peer, on `backend`; (e) with `faults` on both.
async function pageAndNative(backend, ticks, compared, faults) {
  const what = `page + native (${backend}${faults ? `, ${faults.latency}±${faults.jitter} ms, ${faults.lossPerMille / 10}% loss` : ""})`;
  const sig = await signaling();
  try {
    const config = backend === "float_pinned_32" ? join(scratch, "pinned.toml") : undefined;
    const n = native(sig.url, `native-${backend}${faults ? "-faulty" : ""}`, { ticks, config, faults });
    const faultQuery = faults
      ? `&fault_latency_ms=${faults.latency}&fault_jitter_ms=${faults.jitter}&fault_loss_per_mille=${faults.lossPerMille}`
      : "";
    const p = await openPage(sig.url, `ticks=${ticks}&backend=${backend}${faultQuery}`, `${what} page`);
    const [end, nat] = await Promise.all([pageEnd(p, SESSION_MS), n.done]);
    report(`${what}, page`, end);
    report(`${what}, native`, nat.out);
    if (!end) return fail(`${what}: the page's run did not end: ${nat.out}`);
    if (nat.code !== 0) fail(`${what}: native exit ${nat.code}: ${nat.out}`);
    const d = disagreement(await pageHashes(p), parseHashes(readFileSync(n.hashesFile, "utf8")), compared);
    if (d) fail(`${what} disagree: ${d}`);
    else console.log(`webrtc test: ${what} agree on every confirmed tick 1..=${compared}`);
    if (faults) {
      // A faulty link mispredicts: the session rolled back (either side).
      const rollbacks = [end, nat.out].map((t) => Number(String(t).match(/(\d+) rollbacks/)?.[1] ?? 0));
      if (!rollbacks.some((r) => r > 0)) fail(`${what}: no rollbacks (page ${rollbacks[0]}, native ${rollbacks[1]})`);
    }
    checkErrors(p);
    await p.page.context().close();
  } finally {
    sig.stop();
  }
}

// (f) no signaling server: the page's run ends with net/signaling_failed.
async function noSignaling() {
  const what = "no signaling server";
  // A port nothing listens on (bound, read, released).
  const port = await new Promise((ok) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => ok(port));
    });
  });
  const opened = Date.now();
  const p = await openPage(`ws://127.0.0.1:${port}`, "", `${what} page`, "/nobody");
  const end = await pageEnd(p, NO_SIGNAL_MS);
  const ms = Date.now() - opened;
  report(what, end);
  if (!end || !/net\/signaling_failed/.test(end)) {
    fail(`${what}: the page's end after ${ms} ms names no net/signaling_failed: ${end}`);
  } else {
    console.log(`webrtc test: ${what}: the page ended with net/signaling_failed ${ms} ms after it opened: ${end}`);
  }
  await p.page.context().close();
}

// (c) the page closes mid-session: the native peer ends with 10.
async function pageCloses() {
  const what = "page closes";
  const sig = await signaling();
  try {
    const n = native(sig.url, "native-left", { ticks: 100_000 });
    const p = await openPage(sig.url, "", `${what} page`);
    try {
      await p.page.waitForFunction(() => window.laigeDemo && JSON.parse(window.laigeDemo.laige_status()).ticks >= 300, null, {
        timeout: SESSION_MS,
        polling: 100,
      });
    } catch {
      n.child.kill();
      return fail(`${what}: the session did not reach tick 300: ${(await n.done).out}`);
    }
    const closed = Date.now();
    await p.page.context().close();
    const timer = setTimeout(() => n.child.kill(), DISCONNECT_MS);
    const nat = await n.done;
    clearTimeout(timer);
    const ms = Date.now() - closed;
    report(`${what}, native`, nat.out);
    if (nat.code !== 10 || !/disconnected/.test(nat.out)) {
      fail(`${what}: native exit ${nat.code} after ${ms} ms (want 10, the peer named): ${nat.out}`);
    } else {
      console.log(`webrtc test: ${what}: the native peer ended with code 10 ${ms} ms after the close`);
    }
  } finally {
    sig.stop();
  }
}

// (d) a divergent native build: caught as a desync on both sides, and
// `desync-diff` over the two sides' dumps names the nudged field.
async function divergentNative() {
  const what = "divergent native";
  const sig = await signaling();
  try {
    const dumpDir = join(scratch, "native-dumps");
    const n = native(sig.url, "native-perturbed", {
      env: { LAIGE_DEMO_PERTURB_TICK: String(PERTURB_TICK) },
      dumpDir,
    });
    // No limit: the page's run ends with the desync.
    const p = await openPage(sig.url, "", `${what} page`);
    const [end, nat] = await Promise.all([pageEnd(p, SESSION_MS), n.done]);
    report(`${what}, page`, end);
    report(`${what}, native`, nat.out);
    const before = failures.length;
    if (nat.code !== 11 || !/desync/.test(nat.out)) fail(`${what}: native exit ${nat.code} (want 11, a desync): ${nat.out}`);
    if (!end || !/desync at tick/.test(end)) fail(`${what}: the page's end names no desync: ${end}`);
    const pageDump = await p.page.evaluate(() => window.laigeDemo.laige_desync_dump());
    await p.page.context().close();
    if (failures.length > before) return;
    let files = [];
    try {
      files = readdirSync(dumpDir).filter((f) => /^desync-tick-\d+\.dump$/.test(f));
    } catch {}
    if (files.length !== 1) return fail(`${what}: the native peer wrote ${files.length} dumps in ${dumpDir}: ${nat.out}`);
    if (!pageDump.startsWith("laige-snapshot 1\n")) return fail(`${what}: the page has no dump: ${JSON.stringify(pageDump.slice(0, 80))}`);
    const pageFile = join(scratch, "page-desync.dump");
    writeFileSync(pageFile, pageDump);
    const diff = spawnSync(xtaskBin, ["desync-diff", pageFile, join(dumpDir, files[0])], {
      encoding: "utf8",
      maxBuffer: 64 << 20,
    });
    if (diff.error) return fail(`${what}: desync-diff (${xtaskBin}) did not run: ${diff.error}`);
    const lines = diff.stdout.split("\n").filter(Boolean);
    for (const l of lines.slice(0, 6)) console.log(`webrtc test: ${what}: desync-diff: ${l}`);
    // The nudge (demo/perturb): the y velocity of one sprite, Velocity(Vec2)'s
    // tuple field 0, its y; both sides' values printed and not equal.
    const field = lines.find((l) => l.startsWith("component demo.velocity, entity ") && l.includes(", field 0.y: hash "));
    const values = field?.match(/\(values (\S+) vs (\S+)\)$/);
    if (diff.status === 0 || !values || values[1] === values[2]) {
      fail(`${what}: desync-diff (exit ${diff.status}) does not name demo.velocity's field 0.y with two values: ${diff.stdout}${diff.stderr}`);
    } else {
      console.log(`webrtc test: ${what}: caught on both sides; desync-diff over the page's and the native dump names ${field}`);
    }
  } finally {
    sig.stop();
  }
}

try {
  // One long session at a time (two software-rendered pages at once is
  // what two cores carry with room to spare); the two short ones together.
  // A page and a native peer hold one page each: the clean and the faulty
  // pair run together, and the page without a signaling server beside the
  // pinned pair.
  await twoPages();
  await Promise.all([
    pageAndNative("fixed_point_16_16", TICKS, COMPARED),
    pageAndNative("fixed_point_16_16", TICKS, COMPARED, FAULTS),
  ]);
  await Promise.all([pageAndNative("float_pinned_32", PINNED_TICKS, PINNED_COMPARED), noSignaling()]);
  await Promise.all([pageCloses(), divergentNative()]);
} catch (e) {
  fail(`the test itself: ${e?.stack ?? e}`);
} finally {
  await browser.close();
  await server.close();
  rmSync(scratch, { recursive: true, force: true });
}
console.log(`webrtc test: ${failures.length ? "FAILED" : "passed"} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
process.exit(failures.length ? 1 : 0);
