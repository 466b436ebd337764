// Bundles src/main.tsx (and its CSS) into dist/ for Django's static files (/static/web/).
// One JS file and one CSS file with fixed names: the HTML shell (games/templates/web/shell.html) links them
// through Django's static tag, so WhiteNoise's manifest-free storage serves them compressed (gzip/brotli made
// by collectstatic); no inline script or style anywhere, so the page runs under a strict CSP.
import * as esbuild from "esbuild";
import { mkdirSync, rmSync } from "node:fs";

const outdir = new URL("./dist/", import.meta.url).pathname;
rmSync(outdir, { recursive: true, force: true });
mkdirSync(outdir, { recursive: true });
const result = await esbuild.build({
  entryPoints: { app: "src/main.tsx" },
  bundle: true,
  minify: true,
  sourcemap: false,
  format: "esm",
  target: ["es2020"],
  outdir,
  jsx: "automatic",
  jsxImportSource: "preact",
  legalComments: "none",
  metafile: true,
  logLevel: "warning",
});
const sizes = Object.entries(result.metafile.outputs).map(([f, o]) => `${f.split("/").pop()} ${o.bytes} B`);
console.log(`web build: ${sizes.join(", ")}`);
