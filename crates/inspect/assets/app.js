// seekclaw inspect: the page. Session content only ever becomes text
// (createTextNode / textContent), never markup: a title or a tool output
// holding <script> or <img onerror> renders as those characters.
'use strict';
(function () {
  const $ = (id) => document.getElementById(id);
  const params = new URLSearchParams(location.search);
  const blobEl = document.getElementById('seekclaw-data');
  // An export carries its data; the served page asks the server.
  const baked = blobEl ? JSON.parse(blobEl.textContent) : null;
  const state = { sessions: [], current: null, events: [], log: null, view: params.get('view') || 'raw',
    step: Number(params.get('seq')) || 0, tail: null, checkpoints: new Map(), marked: new Set() };

  // el('div', {class: 'x'}, 'text', node, ...): strings become text nodes.
  function el(tag, attrs, ...kids) {
    const n = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === 'onclick') n.addEventListener('click', v); else n.setAttribute(k, String(v));
    }
    for (const k of kids.flat()) {
      if (k === null || k === undefined || k === false) continue;
      n.appendChild(typeof k === 'string' || typeof k === 'number' ? document.createTextNode(String(k)) : k);
    }
    return n;
  }
  const clear = (n) => { while (n.firstChild) n.removeChild(n.firstChild); return n; };
  const time = (ms) => (ms ? new Date(ms).toISOString().replace('T', ' ').slice(0, 23) : '');
  const num = (n) => Number(n || 0).toLocaleString('en-US');

  async function api(path) {
    const r = await fetch(path, { credentials: 'same-origin' });
    if (!r.ok) throw new Error(r.status + ' ' + (await r.text()));
    return r.json();
  }
  const q = (s) => 'scope=' + encodeURIComponent(s.scope) ;
  const base = (s) => '/api/sessions/' + encodeURIComponent(s.id);

  // ---- sidebar ----
  // The first screen of the sidebar comes first; the whole list (for the
  // filter and "Show more") follows without holding the page up.
  async function loadSessions() {
    if (baked) { state.sessions = baked.sessions; renderSidebar(); return; }
    const path = '/api/sessions?archived=' + ($('archived').checked ? '1' : '0');
    const asked = (state.listing = (state.listing || 0) + 1);
    state.sessions = await api(path + '&limit=' + SIDEBAR_ROWS);
    renderSidebar();
    if (state.sessions.length < SIDEBAR_ROWS) { state.full = Promise.resolve(); return; }
    state.full = api(path).then((all) => { if (asked === state.listing) { state.sessions = all; renderSidebar(); } });
    state.full.catch(fail);
  }

  // The first SIDEBAR_ROWS rows are drawn; the rest on demand (a home with
  // 10,000 sessions opens at once). Children follow their parent, indented.
  const SIDEBAR_ROWS = 300;
  let sidebarRows = SIDEBAR_ROWS;
  function nested(list) {
    // A fork sits under the session it came from, as a subagent's does.
    list = list.map((s) => (s.parentId || !s.forkedFrom) ? s : Object.assign({}, s, { parentId: s.forkedFrom }));
    const kids = new Map();
    const ids = new Set(list.map((s) => s.scope + '\n' + s.id));
    for (const s of list) if (s.parentId && ids.has(s.scope + '\n' + s.parentId)) {
      const k = s.scope + '\n' + s.parentId;
      if (!kids.has(k)) kids.set(k, []);
      kids.get(k).push(s);
    }
    const out = [];
    const add = (s, depth) => { out.push([s, depth]); for (const c of kids.get(s.scope + '\n' + s.id) || []) add(c, depth + 1); };
    for (const s of list) if (!(s.parentId && ids.has(s.scope + '\n' + s.parentId))) add(s, 0);
    return out;
  }
  function renderSidebar() {
    const box = clear($('sessions'));
    const f = $('filter').value.toLowerCase();
    const shown = nested(state.sessions.filter((s) => !f || [s.title, s.id, s.workspace].some((t) => t && t.toLowerCase().includes(f))));
    if (!shown.length) { box.appendChild(el('p', { class: 'empty' }, 'No sessions.')); return; }
    let scope = null;
    for (const [s, depth] of shown.slice(0, sidebarRows)) {
      const label = s.global ? 'Global' : (s.workspace || s.scope);
      if (label !== scope) { scope = label; box.appendChild(el('div', { class: 'scope' }, label)); }
      const cur = state.current && state.current.id === s.id && state.current.scope === s.scope;
      const tokens = Number(s.inputTokens || 0) + Number(s.outputTokens || 0);
      box.appendChild(el('button', {
        type: 'button', class: 'session' + (cur ? ' current' : '') + (s.archived ? ' archived' : '') + (depth ? ' child' : ''),
        'data-id': s.id, onclick: () => openSession(s),
      }, el('span', { class: 'stitle' }, (s.forkedFrom ? '⑂ ' : '') + (s.title || s.id)),
      el('span', { class: 'meta' }, (s.updatedAt || '').replace('T', ' ').slice(0, 16) + ' · ' + num(s.turns) + ' turns · ' + num(tokens) + ' tokens' + (s.running ? ' · running' : ''))));
    }
    if (shown.length > sidebarRows) {
      box.appendChild(el('button', { type: 'button', class: 'more', onclick: () => { sidebarRows += SIDEBAR_ROWS * 3; renderSidebar(); } },
        'Show more (' + num(shown.length - sidebarRows) + ' not shown)'));
    }
  }

  // ---- full-text search ----
  // Snippets mark matches «like this»; they become <mark> elements whose
  // content is text, so a hit cannot inject markup.
  function marked(snippet) {
    const out = [];
    String(snippet || '').split('«').forEach((part, i) => {
      if (i === 0) { out.push(part); return; }
      const end = part.indexOf('»');
      if (end < 0) { out.push(part); return; }
      out.push(el('mark', {}, part.slice(0, end)), part.slice(end + 1));
    });
    return out;
  }
  // An export has no server: its baked logs are searched in the page.
  function searchBaked(query) {
    const words = query.toLowerCase().split(/\s+/).filter(Boolean).map((w) => w.replace(/\*$/, ''));
    const hits = [];
    for (const s of baked.sessions) {
      const log = baked.logs[s.scope + '\n' + s.id] || { events: [] };
      for (const e of log.events) {
        const it = e.item || {};
        const text = it.type === 'tool_result' ? it.output : it.text;
        const low = (text || '').toLowerCase();
        if (!text || !words.every((w) => low.includes(w))) continue;
        const at = low.indexOf(words[0]);
        const snippet = text.slice(Math.max(0, at - 60), at) + '«' + text.slice(at, at + words[0].length) + '»' + text.slice(at + words[0].length, at + 120);
        hits.push({ scope: s.scope, sessionId: s.id, seq: e.seq, kind: it.type, snippet, title: s.title });
      }
    }
    return hits.slice(0, 100);
  }
  async function runSearch() {
    const query = $('search').value.trim();
    const box = clear($('hits'));
    if (!query) return;
    const hits = baked ? searchBaked(query) : await api('/api/search?q=' + encodeURIComponent(query));
    box.appendChild(el('div', { class: 'scope' }, hits.length ? hits.length + (hits.length >= 100 ? '+' : '') + ' matches, newest first' : 'No matches for ' + query));
    for (const h of hits) {
      box.appendChild(el('button', { type: 'button', class: 'hit', 'data-session': h.sessionId, 'data-seq': h.seq, onclick: () => openHit(h) },
        el('span', { class: 'meta' }, (h.title || h.sessionId) + ' · #' + h.seq + ' ' + h.kind), ...marked(h.snippet)));
    }
  }
  async function openHit(h) {
    let s = state.sessions.find((x) => x.id === h.sessionId && x.scope === h.scope);
    if (!s) s = { scope: h.scope, id: h.sessionId, title: h.title, workspace: h.workspace, global: !h.workspace, archived: h.archived };
    state.view = 'raw';
    if (!state.current || state.current.id !== s.id || state.current.scope !== s.scope) await openSession(s);
    else render();
    reveal(h.seq);
  }
  // Scrolls to an event, opening the folded turn that holds it.
  function reveal(seq) {
    // Groups first: opening one draws the turns it holds.
    for (const css of ['#view details.group', '#view details.turn:not(.group)']) {
      for (const t of document.querySelectorAll(css)) {
        const [from, to] = (t.dataset.range || '').split('-').map(Number);
        if (seq >= from && seq <= to && !t.open) { t.open = true; t.drawNow(); }
      }
    }
    const row = document.querySelector('#view .event[data-seq="' + seq + '"]');
    if (!row) return;
    for (const old of document.querySelectorAll('#view .event.target')) old.classList.remove('target');
    row.classList.add('target');
    row.scrollIntoView({ block: 'center' });
  }

  // ---- opening a session ----
  async function openSession(s) {
    stopTail();
    state.current = s;
    state.events = [];
    state.log = null;
    state.checkpoints = new Map();
    state.marked = new Set();
    $('title').textContent = s.title || s.id;
    renderSidebar();
    if (baked) {
      state.log = baked.logs[s.scope + '\n' + s.id] || { events: [], views: [] };
      state.events = state.log.events;
    } else if (!s.file) {
      let after = 0;
      for (;;) {
        const page = await api(base(s) + '/events?' + q(s) + '&after=' + after);
        state.events.push(...page.events);
        if (!page.more || !page.events.length) break;
        after = page.events[page.events.length - 1].seq;
      }
      await loadCheckpoints(s).catch(() => {});
      if (params.get('tail') !== '0') startTail(s);
    }
    render();
    // A long session opens at its end (its latest turn), where one looks first.
    if (state.view === 'raw') toEnd();
  }
  function toEnd() { const v = $('view'); v.scrollTop = v.scrollHeight; }
  function atEnd() { const v = $('view'); return v.scrollHeight - v.scrollTop - v.clientHeight < 40; }

  function startTail(s) {
    const last = state.events.length ? state.events[state.events.length - 1].seq : 0;
    const src = new EventSource(base(s) + '/tail?' + q(s) + '&after=' + last);
    src.addEventListener('events', (m) => {
      if (state.current !== s) return;
      const page = JSON.parse(m.data);
      // A reconnect resumes after the last message's id; anything already
      // drawn is still skipped.
      const known = state.events.length ? state.events[state.events.length - 1].seq : 0;
      const fresh = page.events.filter((e) => e.seq > known);
      if (!fresh.length) return;
      state.events.push(...fresh);
      if (state.view === 'raw') appendRaw(fresh); else render();
      // A step's checkpoint is taken as its result is logged.
      loadCheckpoints(s).then(markNew).catch(() => {});
    });
    src.onopen = () => { $('live').textContent = '● live'; };
    src.onerror = () => { $('live').textContent = ''; };
    state.tail = src;
  }
  function stopTail() { if (state.tail) state.tail.close(); state.tail = null; $('live').textContent = ''; }

  function render() {
    for (const b of document.querySelectorAll('#tabs button')) b.classList.toggle('active', b.dataset.view === state.view);
    const view = clear($('view'));
    if (!state.current) { view.appendChild(el('p', { class: 'empty' }, 'Pick a session on the left, or drop a session file.')); return; }
    if (state.view === 'model') renderModel(view).catch(fail);
    else if (state.view === 'usage') renderUsage(view).catch(fail);
    else if (state.view === 'flow') renderFlow(view);
    else renderRaw(view, state.events);
  }

  // ---- raw log ----
  // Turns: a new one starts after each terminal.
  function turnsOf(events) {
    const turns = [[]];
    for (const e of events) {
      turns[turns.length - 1].push(e);
      if (e.item && e.item.type === 'terminal') turns.push([]);
    }
    return turns.filter((t) => t.length);
  }

  // The latest turns are drawn at once (about EAGER events); older ones fold
  // and draw when opened, so a 5,000-event log opens quickly.
  const EAGER = 400;
  function renderRaw(view, events) {
    const turns = turnsOf(events);
    if (!turns.length) view.appendChild(el('p', { class: 'empty' }, 'This session has no events.'));
    let first = turns.length;
    for (let left = EAGER; first > 0 && left > 0; first--) left -= turns[first - 1].length;
    // Older turns fold by GROUP (one element per group until opened).
    for (let g = 0; g < first; g += GROUP) view.appendChild(turnGroup(turns, g, Math.min(first, g + GROUP)));
    turns.slice(first).forEach((t, i) => view.appendChild(turnBox(t, first + i + 1)));
  }

  const GROUP = 50;
  function turnGroup(turns, from, to) {
    if (to - from === 1) return foldedTurn(turns[from], from + 1);
    const firstSeq = turns[from][0].seq;
    const lastTurn = turns[to - 1];
    const lastSeq = lastTurn[lastTurn.length - 1].seq;
    const count = turns.slice(from, to).reduce((a, t) => a + t.length, 0);
    const box = el('details', { class: 'turn folded group', 'data-range': firstSeq + '-' + lastSeq },
      el('summary', {}, 'Turns ' + (from + 1) + '–' + to + ' (' + num(count) + ' events, #' + firstSeq + '–#' + lastSeq + ')'));
    const draw = () => {
      if (!box.open || box.dataset.drawn) return;
      box.dataset.drawn = '1';
      for (let i = from; i < to; i++) box.appendChild(foldedTurn(turns[i], i + 1));
    };
    box.drawNow = draw;
    box.addEventListener('toggle', draw);
    return box;
  }

  function foldedTurn(events, n) {
    const last = events[events.length - 1];
    const first = events.find((e) => e.item && e.item.type === 'user');
    const prompt = first ? first.item.text : '';
    const box = el('details', { class: 'turn folded', 'data-range': events[0].seq + '-' + last.seq },
      el('summary', {}, 'Turn ' + n + ' (' + events.length + ' events, #' + events[0].seq + '–#' + last.seq + ')' + (prompt ? ': ' + prompt.slice(0, 100) : '')));
    const draw = () => {
      if (!box.open || box.dataset.drawn) return;
      box.dataset.drawn = '1';
      for (const e of events) box.appendChild(eventRow(e));
    };
    // A search hit opens it from code and needs its rows at once.
    box.drawNow = draw;
    box.addEventListener('toggle', draw);
    return box;
  }

  function turnBox(events, n) {
    const box = el('section', { class: 'turn' }, el('h3', {}, 'Turn ' + n));
    for (const e of events) box.appendChild(eventRow(e));
    const last = events[events.length - 1];
    if (last && last.item && last.item.type === 'terminal') box.dataset.closed = '1';
    return box;
  }

  // Live events go into the last open turn (or a new one) without redrawing.
  function appendRaw(events) {
    const view = $('view');
    // Followed while the reader is at the end; left alone once they scroll up.
    const follow = atEnd();
    const all = view.querySelectorAll('section.turn');
    let box = all.length ? all[all.length - 1] : null;
    for (const e of events) {
      if (!box || box.dataset.closed) {
        box = turnBox([], view.querySelectorAll('.turn').length + 1);
        view.appendChild(box);
      }
      box.appendChild(eventRow(e));
      if (e.item && e.item.type === 'terminal') box.dataset.closed = '1';
    }
    if (follow) toEnd();
  }

  function folded(label, text, lines) {
    const long = text.length > 2000 || text.split('\n').length > (lines || 20);
    if (!long) return el('pre', {}, text);
    return el('details', {}, el('summary', {}, label + ' (' + text.split('\n').length + ' lines, ' + num(text.length) + ' chars)'), el('pre', {}, text));
  }

  function diffView(diff) {
    const pre = el('pre', { class: 'diff' });
    for (const line of diff.split('\n')) {
      const cls = line.startsWith('@@') ? 'hunk' : line.startsWith('+') && !line.startsWith('+++') ? 'add' : line.startsWith('-') && !line.startsWith('---') ? 'del' : null;
      pre.appendChild(cls ? el('span', { class: cls }, line) : document.createTextNode(line + '\n'));
    }
    return el('details', { open: true }, el('summary', {}, 'diff'), pre);
  }

  function images(list) {
    const ok = /^image\/(png|jpeg|gif|webp)$/;
    return (list || []).map((img) => img.data && ok.test(img.mediaType)
      ? el('img', { class: 'thumb', alt: img.name, title: img.name, src: 'data:' + img.mediaType + ';base64,' + img.data })
      : el('span', { class: 'badge' }, 'image ' + (img.name || '')));
  }

  function eventRow(e) {
    const it = e.item || {};
    const kind = it.type || 'error';
    const extra = kind === 'terminal' ? ' ' + it.status : kind === 'tool_result' && !it.success ? ' failed'
      : kind === 'hook' && hookStopped(it) ? ' stopped' : '';
    const row = el('div', { class: 'event k-' + kind + extra, 'data-seq': e.seq },
      el('div', { class: 'ehead' }, el('span', {}, '#' + e.seq), el('span', {}, time(e.unixMs)), el('span', { class: 'kind' }, kind)));
    switch (kind) {
      case 'user': case 'steer':
        row.append(el('pre', {}, it.text || ''), ...images(it.images));
        break;
      case 'assistant': {
        if (it.thinking) row.appendChild(el('details', {}, el('summary', {}, 'reasoning'), el('pre', {}, it.thinking)));
        if (it.text) row.appendChild(el('pre', {}, it.text));
        for (const c of it.toolCalls || []) row.appendChild(el('div', { class: 'call' }, el('span', { class: 'name' }, c.name), ' ', el('span', { class: 'badge' }, c.id), folded('arguments', pretty(c.argumentsJson), 12)));
        const meta = [it.modelRef, it.finishReason].filter(Boolean).join(' · ');
        row.appendChild(el('div', { class: 'ehead' }, meta, state.current && state.current.file ? null : el('button', { type: 'button', class: 'link', onclick: () => showModel(e.seq) }, 'model view at this step')));
        break;
      }
      case 'tool_result':
        row.appendChild(el('div', {}, el('span', { class: 'name' }, it.toolName), ' ', el('span', { class: 'badge ' + (it.success ? 'ok' : 'err') }, it.success ? 'ok' : 'error'),
          it.durationMs != null ? ' ' + it.durationMs + ' ms' : '', it.filePath ? ' ' + it.filePath : '', it.summary ? ' — ' + it.summary : ''));
        if (it.diff) row.appendChild(diffView(it.diff));
        row.appendChild(folded('output', it.output || ''));
        break;
      case 'hook':
        row.appendChild(hookLine(it));
        if (it.message) row.appendChild(el('pre', {}, it.message));
        break;
      case 'summary':
        row.append(el('div', {}, 'Summary of events #' + it.fromSeq + '–#' + it.toSeq), folded('summary', it.text || ''));
        break;
      case 'runtime':
        row.append(el('span', { class: 'badge' }, it.kind), el('pre', {}, it.text || ''));
        break;
      case 'terminal':
        row.append(el('span', { class: 'badge ' + (it.status === 'finished' ? 'ok' : 'err') }, it.status), el('pre', {}, it.text || ''));
        break;
      default:
        row.appendChild(el('pre', {}, e.error || JSON.stringify(it, null, 2)));
    }
    for (const c of state.checkpoints.get(e.seq) || []) row.appendChild(checkpointMark(c));
    return row;
  }

  // A hook run (issue 39): the user's command on a lifecycle event. One
  // line: event, command, exit, duration, decision; the tool it was about.
  // A run that blocked, denied, stopped, failed or timed out is highlighted.
  function hookStopped(it) { return ['block', 'deny', 'stop', 'error', 'timeout'].includes(it.decision); }
  function hookLine(it) {
    const exit = it.exitCode == null ? (it.decision === 'timeout' ? 'timed out' : 'no exit') : 'exit ' + it.exitCode;
    return el('div', { class: 'hook' }, el('span', { class: 'name' }, it.event || 'hook'), ' · ',
      el('code', {}, it.command || ''), ' · ' + exit + ' · ' + (it.durationMs != null ? Math.round(it.durationMs) + ' ms' : '—') + ' · ',
      el('span', { class: 'badge ' + (hookStopped(it) ? 'err' : 'ok') }, it.decision || '?'),
      it.tool ? ' ' + it.tool : '', it.source ? el('span', { class: 'badge' }, it.source) : null);
  }

  // ---- checkpoints (the shadow store's, read-only) ----
  // Each checkpoint is marked on the row of the log event it stands at;
  // opening the marker fetches what changed there, as unified diffs.
  async function loadCheckpoints(s) {
    if (baked || s.file) return;
    const rows = await api(base(s) + '/checkpoints?' + q(s));
    if (state.current !== s) return;
    const bySeq = new Map();
    for (const c of rows) if (c.seq != null) bySeq.set(c.seq, [...(bySeq.get(c.seq) || []), c]);
    state.checkpoints = bySeq;
  }
  // Markers for checkpoints whose event row is drawn but unmarked (live).
  function markNew() {
    for (const [seq, rows] of state.checkpoints) {
      const row = document.querySelector('#view .event[data-seq="' + seq + '"]');
      if (!row) continue;
      for (const c of rows) if (!state.marked.has(c.id)) row.appendChild(checkpointMark(c));
    }
  }
  function checkpointMark(c) {
    state.marked.add(c.id);
    const what = c.full ? 'the workspace as first found' : c.files + ' file' + (c.files === 1 ? '' : 's') + ' +' + c.added + ' −' + c.removed;
    const box = el('details', { class: 'checkpoint', 'data-checkpoint': c.id },
      el('summary', {}, '◆ checkpoint · ' + c.kind + ' · ' + what));
    box.addEventListener('toggle', async () => {
      if (!box.open || box.dataset.loaded) return;
      box.dataset.loaded = '1';
      const s = state.current;
      try {
        const files = await api(base(s) + '/checkpoints/' + c.seq + '?' + q(s));
        if (!files.length) box.appendChild(el('p', { class: 'empty' }, c.full ? 'The session\'s first checkpoint: the whole workspace, no diff.' : 'No file changed.'));
        for (const f of files) {
          box.appendChild(el('div', { class: 'cpfile' }, el('span', { class: 'badge' }, f.status), ' ', el('span', { class: 'name' }, f.path), ' +' + f.added + ' −' + f.removed));
          if (f.binary) box.appendChild(el('p', { class: 'empty' }, 'binary file'));
          else if (f.diff) box.appendChild(diffView(f.diff));
        }
      } catch (err) { box.appendChild(el('p', { class: 'k-error' }, 'Error: ' + err.message)); }
    });
    return box;
  }

  function pretty(raw) {
    try { return JSON.stringify(JSON.parse(raw), null, 2); } catch (_) { return String(raw || ''); }
  }

  // ---- model view ----
  function showModel(seq) { state.view = 'model'; state.step = seq; render(); }

  async function renderModel(view) {
    const steps = state.events.filter((e) => e.item && e.item.type === 'assistant');
    if (!steps.length) { view.appendChild(el('p', { class: 'empty' }, 'No model steps in this session.')); return; }
    if (!steps.some((e) => e.seq === state.step)) state.step = steps[steps.length - 1].seq;
    const pick = el('select', { id: 'step' }, steps.map((e, i) => {
      const o = el('option', { value: e.seq }, 'step ' + (i + 1) + ' (event #' + e.seq + ')');
      if (e.seq === state.step) o.selected = true;
      return o;
    }));
    pick.addEventListener('change', () => showModel(Number(pick.value)));
    view.appendChild(el('div', { class: 'picker' }, 'What the model received before ', pick));
    const s = state.current;
    let model = state.log ? bakedModel(state.log, state.step) : null;
    if (!model && !baked && !s.file) model = await api(base(s) + '/model?' + q(s) + '&seq=' + state.step);
    if (state.current !== s || state.view !== 'model') return;
    if (!model) { view.appendChild(el('p', { class: 'empty' }, 'The model view needs the server (or an export).')); return; }
    const step = state.events.find((e) => e.seq === state.step);
    const counted = step && step.item && step.item.usage;
    const tools = model.tools || null;
    view.appendChild(el('p', { class: 'legend', id: 'model-legend' }, model.messages.length + ' messages' +
      (model.systemPrompt ? ' after the system prompt and ' + (tools ? tools.length + ' tools' : 'the tools (not recorded for this session)') + ' (as the latest turn recorded them)' : ' (no system prompt was recorded for this session)') +
      '; ≈' + num(model.estimatedTokens) + ' tokens estimated' + (counted ? ', ' + num(counted.inputTokens) + ' input tokens counted by the provider (' + num(counted.cachedInputTokens) + ' cached)' : '') + '.'));
    const files = model.instructionFiles || [];
    if (files.length) {
      view.appendChild(el('details', { class: 'msg tools', id: 'model-instructions' }, el('summary', {}, files.length + ' instruction files in the system prompt: ' + files.map((f) => f.label + (f.truncated ? ' (cut)' : '')).join(', ')),
        files.map((f) => el('div', { class: 'call' }, el('span', { class: 'name' }, f.label), el('span', {}, ' ' + num(f.bytes) + ' bytes' + (f.truncated ? ', cut to instructions.maxBytes' : '') + ' · ' + f.path),
          (f.imports || []).map((i) => el('div', {}, 'imports ' + i))))));
    }
    if (model.systemPrompt) view.appendChild(el('div', { class: 'msg system' }, el('div', { class: 'ehead' }, el('span', { class: 'kind' }, 'system'), el('span', {}, '≈' + num(model.systemTokens) + ' tokens')), folded('system prompt', model.systemPrompt)));
    if (tools) {
      view.appendChild(el('details', { class: 'msg tools', id: 'model-tools' }, el('summary', {}, tools.length + ' tools offered (≈' + num(model.toolTokens) + ' tokens): ' + tools.map((t) => t.name).join(', ')),
        tools.map((t) => el('div', { class: 'call' }, el('span', { class: 'name' }, t.name), el('pre', {}, t.description || ''), folded('parameters', JSON.stringify(t.parameters, null, 2), 12)))));
    }
    for (const m of model.messages) {
      const box = el('div', { class: 'msg ' + m.role }, el('div', { class: 'ehead' }, el('span', { class: 'kind' }, m.role), el('span', {}, m.seq == null ? 'synthesized (no event)' : 'from #' + m.seq), m.name ? el('span', {}, m.name) : null, m.isError ? el('span', { class: 'badge err' }, 'error') : null, el('span', {}, '≈' + num(m.tokens) + ' tokens')));
      if (m.thinking) box.appendChild(el('details', {}, el('summary', {}, 'reasoning'), el('pre', {}, m.thinking)));
      if (m.text) box.appendChild(folded('content', m.text));
      for (const c of m.toolCalls || []) box.appendChild(el('div', { class: 'call' }, el('span', { class: 'name' }, c.name), ' ', folded('arguments', pretty(c.arguments), 12)));
      view.appendChild(box);
    }
  }

  // An export's model view at step `seq`: each step's messages are the
  // previous step's first `keep` plus `add`; the system prompt and the tools
  // are baked once for the session.
  // A message's text (reasoning) marked `textFromEvent` (`thinkingFromEvent`)
  // is its event's, which the export carries once.
  function bakedModel(log, seq) {
    if (!log.bySeq) log.bySeq = new Map(log.events.map((e) => [e.seq, e.item || {}]));
    const filled = (m) => {
      if (!m.textFromEvent && !m.thinkingFromEvent) return m;
      const it = log.bySeq.get(m.seq) || {};
      const out = Object.assign({}, m);
      if (m.textFromEvent) out.text = it.type === 'tool_result' ? it.output : it.text;
      if (m.thinkingFromEvent) out.thinking = it.thinking;
      return out;
    };
    let messages = [];
    for (const v of log.views || []) {
      messages = messages.slice(0, v.keep).concat(v.add.map(filled));
      if (v.seq !== seq) continue;
      return { seq, systemPrompt: log.systemPrompt, systemTokens: log.systemTokens, tools: log.tools, toolTokens: log.toolTokens, instructionFiles: log.instructionFiles,
        messages, estimatedTokens: log.systemTokens + log.toolTokens + v.messageTokens };
    }
    return null;
  }

  // ---- usage ----
  // Each step's log entry carries what its provider calls used (`usage`);
  // steps from older logs or imported files have none, and their tokens are
  // estimated from text at ≈4 characters per token (and said so).
  function stepUsage(events) {
    const steps = [];
    let context = 0;
    let turn = 1;
    for (const e of events) {
      const it = e.item || {};
      const size = (it.text || '').length + (it.output || '').length + (it.thinking || '').length + (it.toolCalls || []).reduce((a, c) => a + (c.argumentsJson || '').length, 0);
      if (it.type === 'assistant') {
        const u = it.usage;
        steps.push(u ? { seq: e.seq, turn, input: u.inputTokens, cached: u.cachedInputTokens, output: u.outputTokens, reasoning: u.reasoningTokens, cost: u.costNanoUsd / 1e9, real: true }
          : { seq: e.seq, turn, input: Math.round(context / 4), cached: 0, output: Math.round(size / 4), reasoning: 0, cost: 0, real: false });
      }
      context += size;
      if (it.type === 'terminal') turn += 1;
    }
    return steps;
  }
  const usd = (n) => '$' + Number(n || 0).toFixed(n && n < 0.01 ? 6 : 4);

  // The session's ledger per turn: every provider call its turns made
  // (failed, cancelled and cut-off steps and compactions included), which
  // the totals above sum too. Dropped files have none.
  async function ledgerOf(s) {
    if (s.file) return null;
    if (state.log) return state.log.usage || null;
    return api(base(s) + '/usage?' + q(s));
  }

  async function renderUsage(view) {
    const s = state.current;
    const ledger = await ledgerOf(s);
    if (state.current !== s || state.view !== 'usage') return;
    if (!s.file) {
      view.appendChild(el('table', { class: 'totals' },
        [['provider calls', s.llmRounds], ['input tokens', s.inputTokens], ['cached input tokens', s.cachedInputTokens], ['output tokens', s.outputTokens], ['cost (USD)', Number(s.cost || 0).toFixed(4)]]
          .map(([k, v]) => el('tr', {}, el('td', {}, k), el('td', {}, typeof v === 'string' ? v : num(v))))));
    }
    const steps = stepUsage(state.events);
    view.appendChild(el('h3', {}, 'Tokens per step'));
    if (!steps.length) { view.appendChild(el('p', { class: 'empty' }, 'No model steps.')); return; }
    const max = Math.max(1, ...steps.map((p) => p.input + p.output));
    const bars = el('div', { class: 'bars', id: 'usage-bars' });
    for (const p of steps) {
      const tip = '#' + p.seq + (p.real ? '' : ' (estimated)') + ': ' + num(p.input) + ' in (' + num(p.cached) + ' cached), ' + num(p.output) + ' out (' + num(p.reasoning) + ' reasoning), ' + usd(p.cost);
      const col = el('div', { class: 'bar', title: tip, 'data-seq': p.seq });
      col.style.height = Math.max(1, 170 * (p.input + p.output) / max) + 'px';
      const total = Math.max(1, p.input + p.output);
      const out = el('div', { class: 'bar out' });
      out.style.height = (100 * p.output / total) + '%';
      const cached = el('div', { class: 'bar cached' });
      cached.style.height = (100 * p.cached / total) + '%';
      col.append(out, cached);
      bars.appendChild(col);
    }
    const real = steps.filter((p) => p.real).length;
    view.append(bars, el('p', { class: 'legend' }, 'blue: input the step sent (light: read from the prompt cache), orange: output. ' +
      (real === steps.length ? 'All ' + steps.length + ' steps as the provider counted them.'
        : real + ' of ' + steps.length + ' steps as the provider counted them; the others (older or imported logs) estimated at ≈4 characters per token.')));
    const rows = perTurn(state.events, steps, ledger);
    const all = { n: 'all', steps: 0, input: 0, cached: 0, output: 0, reasoning: 0, cost: 0 };
    for (const t of rows) for (const k of ['steps', 'input', 'cached', 'output', 'reasoning', 'cost']) all[k] += t[k];
    const row = (t, cls) => el('tr', { class: cls }, el('td', {}, String(t.n)), el('td', {}, num(t.steps)), el('td', {}, num(t.input)), el('td', {}, num(t.cached)),
      el('td', {}, num(t.output)), el('td', {}, num(t.reasoning)), el('td', {}, usd(t.cost)));
    view.appendChild(el('h3', {}, 'Per turn'));
    view.appendChild(el('table', { class: 'totals', id: 'usage-turns' },
      el('tr', {}, ['turn', 'steps', 'input', 'cached', 'output', 'reasoning', 'cost'].map((h) => el('th', {}, h))),
      rows.map((t) => row(t)), rows.length > 1 ? row(all, 'total') : null));
    view.appendChild(el('p', { class: 'legend' }, ledger && ledger.some((u) => u.turn != null)
      ? 'Every provider call of each turn as recorded (failed, cancelled and cut-off steps and compactions included); “—”: calls of no turn in this log (rewound, or from before turns were recorded).'
      : 'Summed from the steps above.'));
  }

  // Rows of the per-turn table: from the ledger when the session has one
  // (turns numbered as in the log), else summed from the steps.
  function perTurn(events, steps, ledger) {
    const stepsOf = new Map();
    for (const p of steps) stepsOf.set(p.turn, (stepsOf.get(p.turn) || 0) + 1);
    if (ledger && ledger.some((u) => u.turn != null)) {
      const number = new Map();
      let n = 1;
      for (const e of events) {
        if (e.turn && !number.has(e.turn)) number.set(e.turn, n);
        if (e.item && e.item.type === 'terminal') n += 1;
      }
      return ledger.map((u) => {
        const t = u.turn != null ? number.get(u.turn) : undefined;
        return { n: t || '—', steps: t ? stepsOf.get(t) || 0 : 0, input: u.inputTokens, cached: u.cachedInputTokens,
          output: u.outputTokens, reasoning: u.reasoningTokens, cost: u.cost };
      });
    }
    const turns = new Map();
    for (const p of steps) {
      const t = turns.get(p.turn) || { n: p.turn, steps: 0, input: 0, cached: 0, output: 0, reasoning: 0, cost: 0 };
      t.steps += 1; t.input += p.input; t.cached += p.cached; t.output += p.output; t.reasoning += p.reasoning; t.cost += p.cost;
      turns.set(p.turn, t);
    }
    return [...turns.values()];
  }

  // ---- workflow ----
  function renderFlow(view) {
    turnsOf(state.events).forEach((t, i) => {
      view.appendChild(el('h3', {}, 'Turn ' + (i + 1)));
      const flow = el('div', { class: 'flow' });
      const add = (cls, text) => { if (flow.firstChild) flow.appendChild(el('span', { class: 'arrow' }, '→')); flow.appendChild(el('span', { class: 'node ' + cls }, text)); };
      let step = 0;
      for (const e of t) {
        const it = e.item || {};
        if (it.type === 'user' || it.type === 'steer') add('user', it.type + ': ' + (it.text || '').slice(0, 60));
        else if (it.type === 'assistant') { step += 1; add('step', 'step ' + step + ((it.toolCalls || []).length ? ': ' + it.toolCalls.map((c) => c.name).join(', ') : ': answer')); }
        else if (it.type === 'tool_result') add('tool' + (it.success ? '' : ' failed'), it.toolName + (it.success ? '' : ' ✗'));
        else if (it.type === 'hook') add('hook' + (hookStopped(it) ? ' failed' : ''), 'hook ' + it.event + (hookStopped(it) ? ': ' + it.decision : ''));
        else if (it.type === 'summary') add('step', 'summary #' + it.fromSeq + '–#' + it.toSeq);
        else if (it.type === 'terminal') add('end' + (it.status === 'finished' ? '' : ' bad'), it.status);
      }
      view.appendChild(flow);
    });
  }

  // ---- OpenSeek session files (drop or pick) ----
  const KINDS = {
    user: (p) => ({ type: 'user', text: p.content || '' }),
    assistant: (p) => ({ type: 'assistant', text: p.content || '', thinking: p.reasoning_content || null,
      toolCalls: (p.tool_calls || []).map((c) => ({ id: c.id, name: c.name, argumentsJson: c.arguments })) }),
    tool_result: (p) => ({ type: 'tool_result', toolCallId: p.tool_call_id, toolName: p.tool_name, output: p.content || '', success: !p.is_error, summary: p.brief || null }),
    runtime_notice: (p) => ({ type: 'runtime', kind: 'notice', text: p.content || '' }),
    summary: (p) => ({ type: 'summary', text: p.content || '', fromSeq: p.from_sequence, toSeq: p.to_sequence }),
    terminal: (p) => ({ type: 'terminal', status: p.kind, text: p.message || '' }),
  };

  // Lenient, like OpenSeek's viewer: bad lines become error cards.
  function parseSessionFile(text) {
    let header = null;
    const events = [];
    text.split('\n').forEach((line, i) => {
      if (!line.trim()) return;
      let v;
      try { v = JSON.parse(line); } catch (err) { events.push({ seq: 'line ' + (i + 1), error: 'line ' + (i + 1) + ': ' + err.message + '\n' + line }); return; }
      if (v && v.version !== undefined && v.events) { header = v; v.events.forEach((x) => events.push(convert(x, i))); return; }
      if (v && v.version !== undefined && !v.item) { header = v; return; }
      events.push(convert(v, i));
    });
    return { header, events };
  }
  function convert(v, i) {
    const k = v && v.item && KINDS[v.item.kind];
    if (!k) return { seq: v && v.sequence || 'line ' + (i + 1), error: 'line ' + (i + 1) + ': unknown event\n' + JSON.stringify(v) };
    return { seq: v.sequence, unixMs: v.ts, item: k(v.item.payload || {}) };
  }

  async function openFile(file) {
    const parsed = parseSessionFile(await file.text());
    stopTail();
    state.current = { file: true, id: (parsed.header && parsed.header.id) || file.name, scope: 'file', title: file.name };
    state.events = parsed.events;
    state.log = null;
    state.view = 'raw';
    $('title').textContent = 'File: ' + file.name;
    renderSidebar();
    render();
  }

  // ---- wiring ----
  function fail(err) { clear($('view')).appendChild(el('p', { class: 'k-error' }, 'Error: ' + err.message)); }
  $('filter').addEventListener('input', () => { sidebarRows = SIDEBAR_ROWS; renderSidebar(); });
  $('searchform').addEventListener('submit', (ev) => { ev.preventDefault(); runSearch().catch(fail); });
  $('search').addEventListener('search', () => { if (!$('search').value) clear($('hits')); });
  $('archived').addEventListener('change', () => loadSessions().catch(fail));
  for (const b of document.querySelectorAll('#tabs button')) b.addEventListener('click', () => { state.view = b.dataset.view; render(); });
  $('file').addEventListener('change', (ev) => { if (ev.target.files[0]) openFile(ev.target.files[0]).catch(fail); });
  document.addEventListener('dragover', (ev) => { ev.preventDefault(); $('drop').classList.add('over'); });
  document.addEventListener('dragleave', () => $('drop').classList.remove('over'));
  document.addEventListener('drop', (ev) => {
    ev.preventDefault();
    $('drop').classList.remove('over');
    const f = ev.dataTransfer && ev.dataTransfer.files[0];
    if (f) openFile(f).catch(fail);
  });

  // When the first view is drawn, for measurements (`seekclaw-bench inspect`).
  const drawn = () => { document.documentElement.dataset.renderedMs = String(performance.now()); };
  loadSessions().then(async () => {
    const want = params.get('session');
    const find = () => state.sessions.find((x) => x.id === want);
    // A session past the first screen: wait for the whole list.
    if (want && !find() && state.full) await state.full;
    const s = find() || (baked ? state.sessions[0] : null);
    if (s) return openSession(s).then(drawn);
    render();
    drawn();
  }).catch(fail);
})();
