// The browser harness of laige's tests: Debian's Chromium driven by
// playwright-core (which downloads no browser), and a static file server on
// 127.0.0.1 for the pages. Every browser test goes through `launchChromium`,
// so the flags live here once.
import { createServer } from "node:http";
import { readFile, stat } from "node:fs/promises";
import { extname, join, normalize, resolve, sep } from "node:path";
import process from "node:process";
import { chromium } from "playwright-core";

/// The browser binary: `LAIGE_CHROMIUM` or Debian's.
export const CHROMIUM = process.env.LAIGE_CHROMIUM || "/usr/bin/chromium";

/// The flags of every launch. WebGL without a GPU needs SwiftShader, which
/// Chrome 144+ enables only on request; the background services would try
/// the network, which this machine and CI do not have.
export const FLAGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--enable-unsafe-swiftshader",
  "--use-angle=swiftshader",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-default-apps",
  "--disable-extensions",
];

/// Launches headless Chromium (a fresh profile per launch: playwright's
/// temporary user-data-dir). `options.args` adds flags (for example
/// `--disable-features=WebRtcHideLocalIpsWithMdns` for WebRTC on loopback).
export async function launchChromium(options = {}) {
  const { args = [], ...rest } = options;
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    chromiumSandbox: false,
    args: [...FLAGS, ...args],
    ...rest,
  });
}

/// Collects `page`'s console errors and uncaught page errors into `errors`
/// (a new array unless given; several pages may share one) and returns it.
export function watchErrors(page, errors = []) {
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  page.on("pageerror", (e) => errors.push(String(e)));
  return errors;
}

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".wasm": "application/wasm",
  ".json": "application/json",
  ".png": "image/png",
  ".css": "text/css; charset=utf-8",
  ".bin": "application/octet-stream",
};

/// Serves the files of `dir` on 127.0.0.1 (a free port); `{ url, close }`.
/// `extra` maps a path (`/index.html`) to generated content.
/// `options.isolated` sends the cross-origin isolation headers (COOP
/// same-origin, COEP require-corp): a page's `performance.now()` then
/// ticks in 5 µs steps instead of 100 µs (what a timing page needs).
export async function serveDir(dir, extra = {}, options = {}) {
  const root = resolve(dir);
  const isolation = options.isolated
    ? {
        "cross-origin-opener-policy": "same-origin",
        "cross-origin-embedder-policy": "require-corp",
      }
    : {};
  const server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url, "http://x").pathname);
    const body = extra[path === "/" ? "/index.html" : path];
    if (body !== undefined) {
      const type = TYPES[extname(path === "/" ? "/index.html" : path)] ?? "text/plain";
      res.writeHead(200, { "content-type": type, "cache-control": "no-store", ...isolation });
      res.end(body);
      return;
    }
    const file = normalize(join(root, path === "/" ? "index.html" : path));
    if (file !== root && !file.startsWith(root + sep)) {
      res.writeHead(403).end();
      return;
    }
    try {
      if (!(await stat(file)).isFile()) throw new Error("not a file");
      const data = await readFile(file);
      res.writeHead(200, {
        "content-type": TYPES[extname(file)] ?? "application/octet-stream",
        "cache-control": "no-store",
        ...isolation,
      });
      res.end(data);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise((ok, fail) => {
    server.once("error", fail);
    server.listen(0, "127.0.0.1", ok);
  });
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((ok) => server.close(ok)),
  };
}
