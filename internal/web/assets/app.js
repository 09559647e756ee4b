// threadbench's web page. It sets each page's part (server-rendered HTML,
// /ui/parts/...) into the shell, follows a running run's event stream and
// draws its live charts, and sends the new run form to the JSON API. It is
// the page's only script: no library, no build step (internal/web/doc.go).
'use strict';

(() => {
  const main = document.getElementById('main');
  const tokenKey = 'threadbench.token';
  const svgNS = 'http://www.w3.org/2000/svg';
  let pageAbort = null; // ends the current page's fetches and stream

  // ---- The daemon, with its token when it has one --------------------

  const token = () => sessionStorage.getItem(tokenKey) || '';

  // request is fetch with the bearer token; a 401 asks for the token and
  // tries again.
  async function request(url, options = {}) {
    for (;;) {
      const headers = new Headers(options.headers || {});
      const t = token();
      if (t) headers.set('Authorization', 'Bearer ' + t);
      const res = await fetch(url, { ...options, headers, cache: 'no-store' });
      if (res.status !== 401) return res;
      await askToken(t ? 'The daemon refused that token.' : '');
    }
  }

  let tokenWait = null;

  function askToken(message) {
    if (tokenWait) return tokenWait;
    const dialog = document.getElementById('token-dialog');
    const form = document.getElementById('token-form');
    const error = document.getElementById('token-error');
    sessionStorage.removeItem(tokenKey);
    error.textContent = message;
    error.hidden = !message;
    tokenWait = new Promise((resolve) => {
      form.onsubmit = (e) => {
        e.preventDefault();
        const value = form.elements.token.value.trim();
        if (!value) return;
        sessionStorage.setItem(tokenKey, value);
        form.reset();
        dialog.close();
        tokenWait = null;
        showForget();
        resolve();
      };
    });
    dialog.showModal();
    return tokenWait;
  }

  function showForget() {
    document.getElementById('forget-token').hidden = !token();
  }

  // confirmAction asks a yes-or-no question in the page's own dialog.
  function confirmAction(text, yes) {
    const dialog = document.getElementById('confirm-dialog');
    const form = document.getElementById('confirm-form');
    document.getElementById('confirm-text').textContent = text;
    document.getElementById('confirm-yes').textContent = yes;
    return new Promise((resolve) => {
      const done = (answer) => {
        dialog.onclose = null;
        if (dialog.open) dialog.close();
        resolve(answer);
      };
      form.onsubmit = (e) => { e.preventDefault(); done(true); };
      document.getElementById('confirm-no').onclick = () => done(false);
      dialog.onclose = () => done(false);
      dialog.showModal();
    });
  }

  // ---- Pages ----------------------------------------------------------

  // isPage says whether a path is one of the page's (a shell's).
  const isPage = (path) => path === '/' ||
    (path.startsWith('/ui/') && !path.startsWith('/ui/assets/') && !path.startsWith('/ui/parts/'));

  function partURL() {
    const name = location.pathname === '/' ? 'history' : location.pathname.slice('/ui/'.length);
    return '/ui/parts/' + name + location.search;
  }

  // load fetches the part of the current URL and shows it.
  async function load() {
    if (pageAbort) pageAbort.abort();
    const abort = new AbortController();
    pageAbort = abort;
    main.setAttribute('aria-busy', 'true');
    let html;
    try {
      const res = await request(partURL(), { signal: abort.signal });
      const type = res.headers.get('Content-Type') || '';
      html = type.startsWith('text/html') ? await res.text() : problemHTML(res.status, await res.text());
    } catch (err) {
      if (abort.signal.aborted) return;
      html = problemHTML(0, JSON.stringify({ detail: 'the daemon does not answer: ' + err.message }));
    }
    if (abort.signal.aborted) return;
    show(html);
    enhance(main.querySelector('[data-page]'), abort.signal);
    main.setAttribute('aria-busy', 'false');
    performance.mark('threadbench:rendered');
  }

  // problemHTML shows a response that is not a part (a problem document).
  function problemHTML(status, body) {
    let detail = body;
    try { detail = JSON.parse(body).detail || body; } catch (_) { /* not JSON: as it is */ }
    const section = document.createElement('section');
    section.className = 'page';
    section.dataset.page = 'error';
    section.dataset.title = 'Error';
    const h1 = document.createElement('h1');
    h1.textContent = status ? 'The daemon answered ' + status : 'No answer';
    const p = document.createElement('p');
    p.className = 'problem';
    p.textContent = detail;
    section.append(h1, p);
    return section.outerHTML;
  }

  function show(html) {
    const template = document.createElement('template');
    template.innerHTML = html;
    main.replaceChildren(template.content);
    const page = main.querySelector('[data-page]');
    const title = page && page.dataset.title;
    document.title = (title ? title + ' · ' : '') + 'threadbench';
    for (const a of document.querySelectorAll('header nav a')) {
      if (page && a.dataset.page === page.dataset.page) a.setAttribute('aria-current', 'page');
      else a.removeAttribute('aria-current');
    }
  }

  function navigate(url) {
    history.pushState(null, '', url);
    window.scrollTo(0, 0);
    load();
  }

  document.addEventListener('click', (e) => {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    const a = e.target.closest('a[href]');
    if (!a) return;
    if (a.hasAttribute('download')) {
      if (a.hasAttribute('data-download') && token()) {
        e.preventDefault();
        download(a);
      }
      return;
    }
    if (a.target || a.origin !== location.origin || !isPage(a.pathname)) return;
    if (a.hash && a.pathname === location.pathname && a.search === location.search) return; // an anchor
    e.preventDefault();
    navigate(a.pathname + a.search);
  });

  document.addEventListener('submit', (e) => {
    const form = e.target;
    if (form.matches('form[data-nav]')) {
      e.preventDefault();
      const query = new URLSearchParams();
      for (const [name, value] of new FormData(form)) if (value !== '') query.append(name, value);
      const q = query.toString();
      navigate(form.getAttribute('action') + (q ? '?' + q : ''));
    } else if (form.matches('form[data-compare-pick]')) {
      e.preventDefault();
      const [head, base] = [...form.querySelectorAll('input[name=run]:checked')].map((c) => c.value);
      if (!base) return;
      navigate('/ui/compare?base=' + encodeURIComponent(base) + '&head=' + encodeURIComponent(head));
    } else if (form.matches('form[data-spec]')) {
      e.preventDefault();
      submitSpec(form);
    }
  });

  window.addEventListener('popstate', load);

  // download fetches a report with the token and saves it: a link cannot
  // carry an Authorization header.
  async function download(a) {
    const res = await request(a.href);
    if (!res.ok) {
      a.after(textNode(' (the daemon answered ' + res.status + ')'));
      return;
    }
    const url = URL.createObjectURL(await res.blob());
    const save = document.createElement('a');
    save.href = url;
    save.download = a.getAttribute('download');
    document.body.append(save);
    save.click();
    save.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
  }

  const textNode = (text) => document.createTextNode(text);

  // enhance gives a part its behaviour.
  function enhance(page, signal) {
    if (!page) return;
    if (page.dataset.live) follow(page, signal);
    for (const button of page.querySelectorAll('[data-cancel]')) {
      button.addEventListener('click', () => cancelRun(button, page));
    }
    const pick = page.querySelector('form[data-compare-pick]');
    if (pick) {
      const button = pick.querySelector('#compare-selected');
      pick.addEventListener('change', () => {
        button.disabled = pick.querySelectorAll('input[name=run]:checked').length !== 2;
      });
    }
    const spec = page.querySelector('form[data-spec]');
    if (spec) setupSpecForm(spec);
  }

  // ---- Live view ------------------------------------------------------

  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

  // follow reads the run's event stream until the run ends, then shows
  // the page again: the run's report.
  async function follow(page, signal) {
    const live = { series: new Map(), updates: 0, drawing: false, stage: '', stageShown: '' };
    const state = page.querySelector('[data-stream-state]');
    for (let attempt = 1; attempt <= 5 && !signal.aborted; attempt++) {
      try {
        const res = await request(page.dataset.live, { headers: { Accept: 'text/event-stream' }, signal });
        if (!res.ok) {
          state.textContent = 'the event stream answered ' + res.status;
          return;
        }
        state.textContent = 'following the event stream';
        if (await readEvents(res.body, (name, data) => onEvent(page, live, name, data))) {
          state.textContent = 'the run has ended';
          await sleep(300);
          if (!signal.aborted) load();
          return;
        }
      } catch (err) {
        if (signal.aborted) return;
        state.textContent = 'stream lost (' + err.message + '); reconnecting';
      }
      await sleep(1000 * attempt);
    }
  }

  // readEvents parses Server-Sent Events from a fetch body (EventSource
  // cannot send a token). It returns true after an "end" event.
  async function readEvents(body, handle) {
    const reader = body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    let event = '';
    let data = [];
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return false;
      buffer += value;
      let nl;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl).replace(/\r$/, '');
        buffer = buffer.slice(nl + 1);
        if (line === '') {
          if (data.length && handle(event || 'message', JSON.parse(data.join('\n'))) === 'end') {
            reader.cancel();
            return true;
          }
          event = '';
          data = [];
        } else if (!line.startsWith(':')) {
          const colon = line.indexOf(':');
          const field = colon < 0 ? line : line.slice(0, colon);
          const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
          if (field === 'event') event = value;
          else if (field === 'data') data.push(value);
        }
      }
    }
  }

  const resultKey = (t) => (t.case || t.target) + (t.round ? '#' + (t.round + 1) : '');

  function onEvent(page, live, name, data) {
    switch (name) {
      case 'state':
      case 'end':
        setText(page, '.run-head .status', data.status, 'status status-' + data.status);
        for (const t of data.targets || []) {
          setCell(page, resultKey(t), 'status', t.status);
          for (const b of t.seconds || []) addSecond(live, resultKey(t), b);
        }
        if (name === 'end') setText(page, '[data-now-phase]', data.status);
        redraw(page, live);
        return name;
      case 'run':
        setText(page, '.run-head .status', data.runStatus, 'status status-' + data.runStatus);
        setText(page, '[data-now-phase]', data.runStatus);
        return name;
      case 'target':
        setCell(page, data.target, 'status', data.targetStatus);
        setCell(page, data.target, 'phase', data.phase);
        setText(page, '[data-now-target]', data.target);
        setText(page, '[data-now-phase]', data.phase);
        return name;
      case 'stage':
        live.stage = live.stageShown = data.target + '/' + (data.stage.warmup ? 'warmup' : data.stage.index);
        setCell(page, data.target, 'phase', data.phase);
        setText(page, '[data-now-target]', data.target);
        setText(page, '[data-now-phase]', data.phase);
        setText(page, '[data-now-stage]', stageText(data.stage));
        return name;
      case 'second':
        addSecond(live, data.target, data.second);
        showSecond(page, data.target, data.second);
        setText(page, '[data-now-target]', data.target);
        if (live.stage !== data.target + '/' + data.second.stage) {
          // Joined mid-stage, or the stage event was missed: say what is known.
          live.stage = data.target + '/' + data.second.stage;
          setCell(page, data.target, 'phase', 'attack');
          setText(page, '[data-now-phase]', 'attack');
          if (live.stageShown !== live.stage) setText(page, '[data-now-stage]', 'stage ' + (data.second.stage + 1));
        }
        live.updates++;
        page.dataset.updates = String(live.updates);
        redraw(page, live);
        return name;
    }
    return name;
  }

  function stageText(s) {
    if (!s) return '';
    if (s.warmup) return 'warm-up at ' + s.rate + ' req/s';
    const load = s.model === 'closed' ? s.concurrency + ' clients' : s.rate + ' req/s';
    return 'stage ' + (s.index + 1) + (s.name ? ' (' + s.name + ')' : '') + ': ' + load;
  }

  function setText(page, selector, text, className) {
    const el = page.querySelector(selector);
    if (!el || text === undefined) return;
    el.textContent = text;
    if (className) el.className = className;
  }

  function row(page, key) {
    return [...page.querySelectorAll('tr[data-key]')].find((r) => r.dataset.key === key);
  }

  function setCell(page, key, col, text) {
    const r = row(page, key);
    const cell = r && r.querySelector('[data-col="' + col + '"]');
    if (cell && text !== undefined) cell.textContent = text;
  }

  const errorsOf = (b) => b.stats.requests - b.stats.successes;

  function showSecond(page, key, b) {
    setCell(page, key, 'second', b.second);
    setCell(page, key, 'throughput', b.stats.throughput.toFixed(1));
    setCell(page, key, 'p99', b.stats.latency.p99.toFixed(1));
    setCell(page, key, 'errors', String(errorsOf(b)));
  }

  function addSecond(live, key, b) {
    if (!live.series.has(key)) live.series.set(key, { throughput: [], p99: [], errors: [] });
    const s = live.series.get(key);
    const last = s.throughput[s.throughput.length - 1];
    if (last && last[0] >= b.second) return; // seen already (a stream resumed)
    s.throughput.push([b.second, b.stats.throughput]);
    s.p99.push([b.second, b.stats.latency.p99]);
    s.errors.push([b.second, errorsOf(b)]);
  }

  // redraw draws the live charts at the next frame, once however many
  // seconds arrived.
  function redraw(page, live) {
    if (live.drawing) return;
    live.drawing = true;
    requestAnimationFrame(() => {
      live.drawing = false;
      for (const fig of page.querySelectorAll('[data-live-chart]')) {
        const figure = fig.dataset.liveChart;
        const series = [...page.querySelectorAll('tr[data-key]')].map((r) => ({
          name: r.dataset.key,
          color: r.dataset.color,
          points: live.series.has(r.dataset.key) ? live.series.get(r.dataset.key)[figure] : [],
        }));
        drawChart(fig, figure, fig.dataset.title, series, plan(page));
      }
    });
  }

  function svg(name, attrs, text) {
    const el = document.createElementNS(svgNS, name);
    for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, v);
    if (text !== undefined) el.textContent = text;
    return el;
  }

  // niceStep is 1, 2 or 5 times a power of ten, about a quarter of max.
  function niceStep(max) {
    const raw = max / 4;
    const power = Math.pow(10, Math.floor(Math.log10(raw)));
    return [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw);
  }

  const label = (v) => (Math.abs(v) >= 1000 ? (v / 1000).toFixed(v % 1000 ? 1 : 0) + 'k' : String(+v.toFixed(2)));

  // drawChart draws one line per target on the seconds of the attack, in
  // the shape of internal/chart's charts (svg.chart, g.series).
  // plan is the attack's length and its stages' starts, in seconds.
  function plan(page) {
    const starts = (page.dataset.stageStarts || '').split(' ').filter(Boolean).map(Number);
    return { seconds: +page.dataset.attackSeconds || 10, starts };
  }

  function drawChart(fig, id, title, series, attack) {
    const W = 600, H = 230, L = 52, R = 14, T = 44, B = 30;
    const points = series.flatMap((s) => s.points);
    const xMax = Math.max(attack.seconds, ...points.map((p) => p[0]));
    const yStep = niceStep(Math.max(1, ...points.map((p) => p[1])));
    const yMax = yStep * Math.ceil(Math.max(1, ...points.map((p) => p[1])) / yStep);
    const x = (v) => (L + (v / xMax) * (W - L - R)).toFixed(1);
    const y = (v) => (H - B - (v / yMax) * (H - T - B)).toFixed(1);
    const root = svg('svg', {
      class: 'chart', 'data-chart': 'live-' + id, role: 'img', 'aria-label': title,
      viewBox: `0 0 ${W} ${H}`, width: W, height: H, 'font-size': 11, fill: 'currentColor',
    });
    root.append(svg('title', {}, title), svg('text', { x: 8, y: 17, 'font-size': 13, 'font-weight': 600 }, title));
    const legend = svg('g', { class: 'legend' });
    let lx = 8;
    for (const s of series) {
      legend.append(svg('path', { d: `M${lx} 32h14`, stroke: s.color, 'stroke-width': 2 }), svg('text', { x: lx + 18, y: 36 }, s.name));
      lx += 30 + 7 * s.name.length;
    }
    const grid = svg('g', { class: 'grid', stroke: 'currentColor', 'stroke-opacity': '.15', fill: 'none' });
    const axis = svg('g', { class: 'axis', 'fill-opacity': '.75' });
    for (let v = 0; v <= yMax + 1e-9; v += yStep) {
      grid.append(svg('path', { d: `M${L} ${y(v)}H${W - R}` }));
      axis.append(svg('text', { x: L - 6, y: +y(v) + 4, 'text-anchor': 'end' }, label(v)));
    }
    const xStep = niceStep(xMax);
    for (let v = 0; v <= xMax; v += xStep) {
      axis.append(svg('text', { x: x(v), y: H - B + 14, 'text-anchor': 'middle' }, String(v)));
    }
    axis.append(svg('text', { x: W - R, y: H - 2, 'text-anchor': 'end' }, 'second of the attack'));
    const markers = svg('g', { class: 'marker', stroke: 'currentColor', 'stroke-opacity': '.5', 'stroke-dasharray': '4 3' });
    attack.starts.forEach((start, i) => {
      if (start <= 0) return;
      const marker = svg('g');
      marker.append(svg('title', {}, 'stage ' + (i + 1) + ' at ' + start + ' s'), svg('path', { d: `M${x(start)} ${T}V${H - B}` }));
      markers.append(marker);
    });
    root.append(legend, grid, axis, markers);
    for (const s of series) {
      const g = svg('g', { class: 'series', 'data-series': s.name, stroke: s.color, fill: 'none', 'stroke-width': 1.5 });
      g.append(svg('title', {}, s.name + (s.points.length ? ': ' + label(s.points[s.points.length - 1][1]) + ' at ' + s.points[s.points.length - 1][0] + ' s' : ': no data yet')));
      if (s.points.length) g.append(svg('path', { d: 'M' + s.points.map((p) => x(p[0]) + ' ' + y(p[1])).join('L') }));
      if (s.points.length === 1) g.append(svg('circle', { cx: x(s.points[0][0]), cy: y(s.points[0][1]), r: 2.5, fill: s.color }));
      root.append(g);
    }
    fig.replaceChildren(root);
  }

  async function cancelRun(button, page) {
    if (!(await confirmAction(button.dataset.confirm, 'Cancel the run'))) return;
    button.disabled = true;
    const res = await request(button.dataset.cancel, { method: 'POST' });
    const doc = await res.json().catch(() => ({}));
    if (res.ok) {
      setText(page, '.run-head .status', doc.status, 'status status-' + doc.status);
      button.textContent = 'Canceled';
      return;
    }
    button.disabled = false;
    button.after(textNode(' ' + (doc.detail || 'the daemon answered ' + res.status)));
  }

  // ---- The new run form ---------------------------------------------

  function setupSpecForm(form) {
    const preview = () => {
      form.querySelector('[data-spec-preview]').textContent = JSON.stringify(buildSpec(form).spec, null, 2);
    };
    const applyMode = () => {
      const mode = form.querySelector('input[name=load-mode]:checked').value;
      for (const fs of form.querySelectorAll('[data-on]')) {
        fs.hidden = fs.dataset.on !== mode;
        fs.disabled = fs.dataset.on !== mode;
      }
      for (const fs of form.querySelectorAll('[data-off]')) fs.disabled = fs.dataset.off === mode;
    };
    const applyModel = () => {
      const closed = form.querySelector('[data-model]').value === 'closed';
      form.querySelector('[data-value-head]').textContent = closed ? 'clients' : 'req/s';
      for (const input of form.querySelectorAll('[data-stage-value]')) {
        input.dataset.field = input.dataset.field.replace(/\.(rate|concurrency)$/, closed ? '.concurrency' : '.rate');
      }
    };
    form.addEventListener('change', (e) => {
      if (e.target.name === 'load-mode') applyMode();
      if (e.target.matches('[data-model]')) applyModel();
      preview();
    });
    form.addEventListener('input', preview);
    form.addEventListener('click', (e) => {
      const add = e.target.closest('[data-add-row]');
      const remove = e.target.closest('[data-remove-row]');
      if (add) {
        const rows = form.querySelector('[data-rows="' + add.dataset.addRow + '"]');
        const copy = rows.lastElementChild.cloneNode(true);
        copy.querySelectorAll('.field-error').forEach((el) => el.remove());
        rows.append(copy);
        renumber(rows);
      } else if (remove) {
        const rows = remove.closest('[data-rows]');
        if (rows.children.length > 1) remove.closest('[data-row]').remove();
        renumber(rows);
      } else {
        return;
      }
      preview();
    });
    applyMode();
    applyModel();
    preview();
  }

  function renumber(rows) {
    [...rows.children].forEach((r, i) => {
      for (const c of r.querySelectorAll('[data-field]')) c.dataset.field = c.dataset.field.replace(/\[\d+\]/, '[' + i + ']');
    });
  }

  // buildSpec reads the form into a run spec: each enabled control with a
  // value sets the JSON path its data-field names; empty controls are left
  // out, so the API applies its defaults. It also returns the control (or
  // box) each path was read from, to show the API's field errors there.
  function buildSpec(form) {
    const spec = {};
    const controls = new Map();
    const rowIndex = new Map();
    for (const rows of form.querySelectorAll('[data-rows]')) {
      let n = 0;
      for (const r of rows.children) {
        // A row is a request when any of its keys is given: an endpoint,
        // or the path of a service of one's own.
        const keys = [...r.querySelectorAll('[data-row-key]')];
        if (keys.length === 0 || keys.some((k) => k.value.trim() !== '')) rowIndex.set(r, n++);
      }
    }
    for (const c of form.querySelectorAll('[data-field]')) {
      if (c.matches(':disabled')) continue;
      const r = c.closest('[data-row]');
      if (r && !rowIndex.has(r)) continue; // a request row left empty
      const value = readControl(c);
      if (value === undefined) continue;
      const path = r ? c.dataset.field.replace(/\[\d+\]/, '[' + rowIndex.get(r) + ']') : c.dataset.field;
      if (c.dataset.type === 'list') {
        setPath(spec, path, (getPath(spec, path) || []).concat([value]));
        controls.set(path, c.closest('[data-field-box]') || c);
      } else {
        setPath(spec, path, value);
        controls.set(path, c);
      }
    }
    return { spec, controls };
  }

  function readControl(c) {
    const type = c.dataset.type || 'string';
    if (c.type === 'checkbox') {
      if (!c.checked) return undefined;
      return type === 'list' ? c.value : true;
    }
    const v = c.value.trim();
    if (v === '') return undefined;
    if (type === 'number' || type === 'int') {
      const n = Number(v);
      return Number.isFinite(n) ? n : v; // a word goes as it is: the API says what is wrong with it
    }
    if (type === 'params') {
      const params = {};
      for (const pair of v.split(/[&,\s]+/).filter(Boolean)) {
        const eq = pair.indexOf('=');
        params[eq < 0 ? pair : pair.slice(0, eq)] = eq < 0 ? '' : pair.slice(eq + 1);
      }
      return params;
    }
    return v;
  }

  const pathKeys = (path) => path.match(/[^.[\]]+/g).map((k) => (/^\d+$/.test(k) ? Number(k) : k));

  function getPath(obj, path) {
    return pathKeys(path).reduce((o, k) => (o === undefined ? undefined : o[k]), obj);
  }

  function setPath(obj, path, value) {
    const keys = pathKeys(path);
    let o = obj;
    keys.slice(0, -1).forEach((k, i) => {
      if (o[k] === undefined) o[k] = typeof keys[i + 1] === 'number' ? [] : {};
      o = o[k];
    });
    o[keys[keys.length - 1]] = value;
  }

  async function submitSpec(form) {
    clearErrors(form);
    const { spec, controls } = buildSpec(form);
    const state = form.querySelector('[data-submit-state]');
    const button = form.querySelector('button[type=submit]');
    button.disabled = true;
    state.textContent = 'sending…';
    let busyFor = 0; // seconds the daemon asked us to wait (503 Retry-After)
    let busyDetail = '';
    try {
      const res = await request(form.dataset.spec, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
        body: JSON.stringify(spec),
      });
      const doc = await res.json().catch(() => ({}));
      if (res.status === 202 && doc.id) {
        navigate('/ui/runs/' + encodeURIComponent(doc.id));
        return;
      }
      if (res.status === 503) {
        // The queue is full: nothing was stored. Say so beside the button,
        // and let it be pressed again when the daemon's Retry-After is up.
        busyFor = parseInt(res.headers.get('Retry-After') || '', 10) || 0;
        busyDetail = doc.detail || 'the daemon is busy';
        return;
      }
      showFieldError(form, controls, doc.field || '', doc.detail || 'the daemon answered ' + res.status);
    } catch (err) {
      showFieldError(form, controls, '', 'the daemon does not answer: ' + err.message);
    } finally {
      if (busyFor > 0) {
        waitBusy(button, state, busyDetail, busyFor);
      } else {
        button.disabled = false;
        state.textContent = busyDetail;
      }
    }
  }

  // waitBusy counts down the wait a full queue asked for beside the submit
  // button, which comes back when the wait is over.
  function waitBusy(button, state, detail, seconds) {
    state.dataset.busy = '';
    const tick = () => {
      if (!button.isConnected) return;
      if (seconds <= 0) {
        button.disabled = false;
        state.textContent = detail + ' — you can submit again now';
        delete state.dataset.busy;
        return;
      }
      state.textContent = detail + ' — submit again in ' + seconds + ' s';
      seconds--;
      setTimeout(tick, 1000);
    };
    tick();
  }

  function clearErrors(form) {
    form.querySelectorAll('.field-error:not([data-form-error])').forEach((el) => el.remove());
    form.querySelectorAll('[aria-invalid]').forEach((el) => el.removeAttribute('aria-invalid'));
    form.querySelector('[data-form-error]').hidden = true;
  }

  const covers = (path, field) => field === path || field.startsWith(path + '.') || field.startsWith(path + '[');

  // showFieldError puts the API's message next to the control the field
  // names (or the closest that contains it), else at the top of the form.
  function showFieldError(form, controls, field, detail) {
    let target = null;
    let best = -1;
    const candidates = [...controls];
    for (const box of form.querySelectorAll('[data-field-box]')) {
      if (!box.matches(':disabled')) candidates.push([box.dataset.fieldBox, box]);
    }
    for (const [path, el] of candidates) {
      if (field && covers(path, field) && path.length > best) {
        target = el;
        best = path.length;
      }
    }
    if (field && detail.startsWith(field + ': ')) detail = detail.slice(field.length + 2); // said by its place
    const message = document.createElement('p');
    message.className = 'field-error';
    message.setAttribute('role', 'alert');
    message.dataset.errorFor = field;
    message.textContent = detail;
    if (!target) {
      const top = form.querySelector('[data-form-error]');
      top.textContent = (field ? field + ': ' : '') + detail;
      top.hidden = false;
      top.scrollIntoView({ block: 'center' });
      return;
    }
    if (target.matches('[data-field]')) {
      target.setAttribute('aria-invalid', 'true');
      (target.closest('.field') || target.parentElement).append(message);
      target.focus();
    } else {
      const legend = target.querySelector(':scope > legend');
      if (legend) legend.after(message);
      else target.prepend(message);
    }
    message.scrollIntoView({ block: 'center' });
  }

  document.getElementById('forget-token').addEventListener('click', () => {
    sessionStorage.removeItem(tokenKey);
    showForget();
    load();
  });
  document.getElementById('token-dialog').addEventListener('cancel', (e) => e.preventDefault());
  showForget();
  load();
})();
