"use strict";
// Folds: on opening, the lines named by data-lines are read from the
// document's embedded original and put in with textContent only.
(function () {
  const cap = 20000; // lines one fold shows at most (the rest: publisher get)
  const originals = new Map();

  function bytesOf(b64) {
    const bin = atob(b64);
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  }

  async function decode(el) {
    const bytes = bytesOf(JSON.parse(el.textContent));
    let text;
    if (el.dataset.enc === "gzip") {
      const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
      text = await new Response(stream).text();
    } else {
      text = new TextDecoder().decode(bytes);
    }
    return JSON.parse(text).map(([from, body]) => ({ from: from, lines: body.split("\n") }));
  }

  function original(doc) {
    if (!originals.has(doc)) {
      const el = document.getElementById("orig-" + doc);
      originals.set(doc, el ? decode(el) : Promise.resolve([]));
    }
    return originals.get(doc);
  }

  function lineAt(segs, n) {
    let lo = 0, hi = segs.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1, s = segs[mid];
      if (n < s.from) hi = mid - 1;
      else if (n >= s.from + s.lines.length) lo = mid + 1;
      else return s.lines[n - s.from];
    }
    return undefined;
  }

  function ranges(spec) {
    return spec.split(",").filter(Boolean).map((p) => {
      const [a, b] = p.split("-");
      return [Number(a), Number(b === undefined ? a : b)];
    });
  }

  function note(text) {
    const s = document.createElement("span");
    s.className = "gap";
    s.textContent = text;
    return s;
  }

  async function fill(det) {
    const pre = det.querySelector("pre.orig");
    if (!pre || pre.dataset.filled) return;
    pre.dataset.filled = "1";
    const segs = await original(det.dataset.doc);
    const frag = document.createDocumentFragment();
    let shown = 0, missing = 0, rest = 0;
    const flush = () => {
      if (missing) frag.append(note("… " + missing + " lines not embedded: publisher get " + det.dataset.ref), "\n");
      missing = 0;
    };
    for (const [a, b] of ranges(det.dataset.lines || "")) {
      for (let n = a; n <= b; n++) {
        if (shown >= cap) { rest += b - n + 1; break; }
        const t = lineAt(segs, n);
        if (t === undefined) { missing++; continue; }
        flush();
        const s = document.createElement("span");
        s.className = "l";
        s.dataset.n = String(n);
        s.textContent = t;
        frag.append(s, "\n");
        shown++;
      }
    }
    flush();
    if (rest) frag.append(note("… " + rest + " more lines: publisher get " + det.dataset.ref), "\n");
    pre.replaceChildren(frag);
  }

  document.addEventListener("toggle", (e) => {
    const det = e.target;
    if (det instanceof HTMLDetailsElement && det.classList.contains("fold") && det.open) {
      fill(det).catch((err) => {
        const pre = det.querySelector("pre.orig");
        if (pre) pre.textContent = "could not read the original: " + err;
      });
    }
  }, true);
})();
