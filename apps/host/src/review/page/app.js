// The review page: the list of drafts (kept current by server-sent events), one file by
// hunk, conflicts side by side, history with restore. Plain DOM, no build step; every
// text from the server is set with textContent, never parsed as HTML.
'use strict';

const state = {
  /** The last list: [{ name, readOnly, entries: [{ path, kind, conflict?, alsoOn?, stamp }] }]. */
  mounts: [],
  /** The open file's mount-prefixed path, its answer and its stamp. */
  open: null,
  file: null,
  stamp: null,
  /** The selected hunk's index. */
  selected: 0,
  busy: false,
  /**
   * The open file's history, where the person opened it: { shown: the version id shown,
   * or null }. The file shown again (a new draft, an action's answer) shows it again too.
   */
  history: null,
};

const $ = (id) => document.getElementById(id);

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === 'class') node.className = value;
    else if (key === 'text') node.textContent = value;
    else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value);
  }
  for (const child of children) if (child !== null && child !== undefined) node.append(child);
  return node;
}

function say(text, kind = 'info') {
  const box = $('message');
  box.textContent = text;
  box.className = kind;
  box.hidden = false;
  clearTimeout(say.timer);
  say.timer = setTimeout(() => {
    box.hidden = true;
  }, kind === 'info' ? 4000 : 9000);
}

async function getJson(url) {
  const res = await fetch(url, { credentials: 'same-origin' });
  if (res.status === 401) {
    location.replace('/review/sign-in');
    return { ok: false, message: 'Signed out.' };
  }
  return res.json();
}

async function post(route, body) {
  const res = await fetch(`/review/api/${route}`, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'Content-Type': 'application/json', 'X-WS-Review': '1' },
    body: JSON.stringify(body),
  });
  return res.json();
}

// ── The list ──

function entryOf(path) {
  for (const m of state.mounts) for (const e of m.entries) if (`${m.name}/${e.path}` === path) return e;
  return undefined;
}

function renderList() {
  const nav = $('list');
  nav.replaceChildren();
  for (const m of state.mounts) {
    const section = el('section', { class: 'mount' }, el('h2', { text: m.name + (m.readOnly ? ' (read-only)' : '') }));
    if (m.problem) section.append(el('p', { class: 'problem', text: m.problem }));
    if (m.entries.length === 0) section.append(el('p', { class: 'quiet', text: 'Nothing to review.' }));
    const ul = el('ul');
    for (const e of m.entries) {
      const path = `${m.name}/${e.path}`;
      const link = el(
        'a',
        { href: `#${encodeURIComponent(path)}`, class: state.open === path ? 'current' : '', 'data-path': path },
        el('span', { class: `badge ${e.kind}`, text: e.kind === 'deletion' ? 'deleted' : e.kind }),
        el('span', { class: 'path', text: e.path }),
        ...(e.alsoOn ? [el('span', { class: 'also', text: `also drafted on ${e.alsoOn.join(', ')}` })] : []),
      );
      link.addEventListener('click', (ev) => {
        ev.preventDefault();
        openFile(path);
      });
      ul.append(el('li', {}, link));
    }
    section.append(ul);
    nav.append(section);
  }
}

function listen() {
  const live = $('live');
  const source = new EventSource('/review/api/events');
  source.addEventListener('drafts', (ev) => {
    live.textContent = 'live';
    live.className = 'live on';
    state.mounts = JSON.parse(ev.data).mounts;
    renderList();
    if (state.open !== null) {
      const entry = entryOf(state.open);
      const stamp = entry ? entry.stamp : null;
      if (stamp !== state.stamp && !state.busy) openFile(state.open, { keep: true });
    }
  });
  source.addEventListener('error', () => {
    live.textContent = 'reconnecting…';
    live.className = 'live off';
    // The browser retries a dropped stream itself, but not one refused (signed out, or a
    // restarted server): then look once — a 401 goes to the sign-in page — and listen anew.
    if (source.readyState === EventSource.CLOSED) {
      setTimeout(async () => {
        try {
          const answer = await getJson('/review/api/drafts');
          if (answer.ok) listen();
        } catch {
          setTimeout(() => listen(), 3000);
        }
      }, 2000);
    }
  });
}

// ── One file ──

async function openFile(path, { keep = false } = {}) {
  const answer = await getJson(`/review/api/file?path=${encodeURIComponent(path)}`);
  if (!answer.ok) {
    say(answer.message, 'error');
    return;
  }
  const historyOpen = keep && state.open === path ? state.history : null;
  state.open = path;
  state.file = answer.file;
  const entry = entryOf(path);
  state.stamp = entry ? entry.stamp : null;
  if (!keep) state.selected = 0;
  state.selected = Math.max(0, Math.min(state.selected, answer.file.hunks.length - 1));
  if (location.hash !== `#${encodeURIComponent(path)}`) history.replaceState(null, '', `#${encodeURIComponent(path)}`);
  renderList();
  renderFile();
  state.history = null;
  if (historyOpen !== null) await showHistory(historyOpen.shown);
}

function shown() {
  return { disk: state.file.disk.hash, draft: state.file.draft.hash };
}

async function act(route, body) {
  if (state.busy || state.file === null) return;
  state.busy = true;
  try {
    const answer = await post(route, { path: state.open, shown: shown(), ...body });
    say(answer.message, answer.ok ? 'info' : answer.stale ? 'warn' : 'error');
    await openFile(state.open, { keep: true });
  } catch {
    say('ws serve did not answer; is it still running?', 'error');
  } finally {
    state.busy = false;
  }
}

function hunkView(h) {
  const selected = h.index === state.selected;
  const rows = el('table', { class: 'lines' });
  for (const line of h.lines) {
    const cls = line.mark === '+' ? 'add' : line.mark === '-' ? 'del' : 'ctx';
    rows.append(
      el('tr', { class: cls }, el('td', { class: 'no', text: String(line.line) }), el('td', { class: 'mark', text: line.mark }), el('td', { class: 'text', text: line.text })),
    );
  }
  const section = el(
    'section',
    { class: `hunk${selected ? ' selected' : ''}`, 'data-index': String(h.index), 'aria-label': `Hunk ${h.index + 1}` },
    el(
      'div',
      { class: 'hunk-head' },
      el('code', { text: h.header }),
      el('span', { class: 'counts', text: `−${h.removed} +${h.added}` }),
      el('button', { type: 'button', class: 'accept', text: 'Accept', onclick: () => act('hunks', { accept: [h.index] }) }),
      el('button', { type: 'button', class: 'reject', text: 'Reject', onclick: () => act('hunks', { reject: [h.index] }) }),
    ),
    el('div', { class: 'scroll' }, rows),
  );
  section.addEventListener('click', () => select(h.index, false));
  return section;
}

function textPane(title, side) {
  const body = side === undefined ? 'The store holds no agreed version.' : side.text === null ? side.notText || '(absent)' : side.text;
  return el('section', { class: 'pane' }, el('h3', { text: title }), el('pre', { text: body }));
}

function renderFile() {
  const main = $('file');
  const f = state.file;
  const readOnly = (state.mounts.find((m) => state.open.startsWith(`${m.name}/`)) || {}).readOnly;
  const head = el('div', { class: 'file-head' }, el('h2', { text: state.open }));
  const body = el('div', { class: 'file-body' });
  const buttons = el('div', { class: 'buttons' });
  head.append(buttons);
  if (f.kind === 'none') {
    body.append(el('p', { class: 'quiet', text: 'Nothing to review: disk and the workspace agree.' }));
  } else if (f.kind === 'draft') {
    const all = f.hunks.map((h) => h.index);
    // Over a disk file that isn't text there are no hunks: the draft is taken or left whole.
    const whole = Boolean(f.disk.notText);
    if (whole) body.append(el('p', { class: 'quiet', text: `${f.disk.notText}: accept or reject the whole draft.` }), textPane("The agent's draft", f.draft));
    buttons.append(
      el('button', { type: 'button', class: 'accept', text: 'Accept file', onclick: () => (whole ? act('whole', { choice: 'accept' }) : act('hunks', { accept: all })) }),
      el('button', { type: 'button', class: 'reject', text: 'Reject file', onclick: () => (whole ? act('whole', { choice: 'reject' }) : act('hunks', { reject: all })) }),
    );
    if (f.disk.hash === 'absent') body.append(el('p', { class: 'quiet', text: 'A new file: disk has none yet.' }));
    for (const h of f.hunks) body.append(hunkView(h));
  } else if (f.kind === 'deletion') {
    buttons.append(
      el('button', { type: 'button', class: 'accept', text: 'Accept deletion', onclick: () => act('whole', { choice: 'accept' }) }),
      el('button', { type: 'button', class: 'reject', text: 'Reject deletion', onclick: () => act('whole', { choice: 'reject' }) }),
    );
    body.append(el('p', { text: 'The agent deleted this file. Disk still holds:' }), textPane("Disk's copy", f.disk));
  } else if (f.kind === 'conflict') {
    body.append(
      el('p', { class: 'warn-text', text: 'Disk and the agent both changed this file since they last agreed.' }),
      el('div', { class: 'sides' }, textPane('Agreed base', f.agreed), textPane("Disk's version", f.disk), textPane("The agent's draft", f.draft)),
    );
    const merge = el('textarea', { id: 'merge', spellcheck: 'false', 'aria-label': 'Merge' });
    merge.value = f.draft.text !== null ? f.draft.text : f.disk.text || '';
    body.append(
      el('h3', { text: 'Merge (edit, then save)' }),
      merge,
      el(
        'div',
        { class: 'buttons' },
        el('button', { type: 'button', text: "Take disk's", onclick: () => act('settle', { choice: 'disk' }) }),
        el('button', { type: 'button', text: 'Take the draft', onclick: () => act('settle', { choice: 'draft' }) }),
        el('button', { type: 'button', class: 'accept', id: 'save-merge', text: 'Save merge and materialize', onclick: () => act('settle', { choice: 'merge', merged: merge.value }) }),
      ),
    );
  }
  // A read-only mount's drafts can be looked at, not accepted or rejected.
  if (readOnly) for (const b of [...head.querySelectorAll('button'), ...body.querySelectorAll('button')]) b.disabled = true;
  buttons.append(el('button', { type: 'button', text: 'History', onclick: () => showHistory() }));
  const historyBox = el('section', { id: 'history', class: 'history', hidden: '' });
  main.replaceChildren(head, body, historyBox);
}

function select(index, scroll = true) {
  const hunks = [...document.querySelectorAll('.hunk')];
  if (hunks.length === 0) return;
  state.selected = Math.max(0, Math.min(index, hunks.length - 1));
  for (const h of hunks) h.classList.toggle('selected', Number(h.dataset.index) === state.selected);
  if (scroll) hunks[state.selected].scrollIntoView({ block: 'nearest' });
}

// ── History ──

async function showHistory(shownId = null) {
  const box = $('history');
  const path = state.open;
  // Noted before asking: the file shown again meanwhile opens its history itself.
  state.history = { shown: shownId };
  const answer = await getJson(`/review/api/history?path=${encodeURIComponent(path)}`);
  // The file shown again, or another opened, meanwhile: that view has its own history box.
  if (state.open !== path || !box.isConnected) return;
  box.hidden = false;
  box.replaceChildren(el('h3', { text: 'History' }));
  if (!answer.ok) {
    box.append(el('p', { class: 'quiet', text: answer.message }));
    return;
  }
  if (answer.versions.length === 0) box.append(el('p', { class: 'quiet', text: 'The store holds no versions of this file.' }));
  const list = el('ol', { class: 'versions' });
  const view = el('pre', { class: 'version-text', hidden: '' });
  const show = async (id) => {
    // Noted before asking, so the file shown again meanwhile shows this version too.
    if (state.history !== null) state.history.shown = id;
    const shownVersion = await getJson(`/review/api/version?path=${encodeURIComponent(path)}&version=${encodeURIComponent(id)}`);
    if (!view.isConnected) return;
    view.hidden = false;
    view.textContent = shownVersion.ok ? (shownVersion.text === null ? '(absent)' : shownVersion.text) : shownVersion.message;
  };
  for (const v of answer.versions) {
    const when = new Date(v.at).toLocaleString();
    list.append(
      el(
        'li',
        {},
        el('span', { class: 'when', text: when }),
        el('span', { class: 'source', text: v.source }),
        el('span', { class: 'size', text: v.size === null ? 'absent' : `${v.size} bytes` }),
        el('button', {
          type: 'button',
          text: 'Show',
          onclick: () => show(v.id),
        }),
        el('button', {
          type: 'button',
          text: 'Restore',
          onclick: async () => {
            const answer2 = await post('restore', { path: state.open, version: v.id });
            say(answer2.message, answer2.ok ? 'info' : 'error');
            await openFile(state.open, { keep: true });
          },
        }),
      ),
    );
  }
  box.append(list, view);
  box.scrollIntoView({ block: 'nearest' });
  if (shownId !== null && answer.versions.some((v) => v.id === shownId)) await show(shownId);
}

// ── Keys ──

document.addEventListener('keydown', (ev) => {
  if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
  const t = ev.target;
  if (t instanceof HTMLTextAreaElement || t instanceof HTMLInputElement) return;
  if (state.file === null || state.file.kind !== 'draft') return;
  const hunk = state.file.hunks[state.selected];
  if (ev.key === 'j') select(state.selected + 1);
  else if (ev.key === 'k') select(state.selected - 1);
  else if (ev.key === 'a' && hunk) act('hunks', { accept: [hunk.index] });
  else if (ev.key === 'r' && hunk) act('hunks', { reject: [hunk.index] });
  else return;
  ev.preventDefault();
});

$('sign-out').addEventListener('click', async () => {
  await post('sign-out', {});
  location.replace('/review/sign-in');
});

listen();
if (location.hash.length > 1) openFile(decodeURIComponent(location.hash.slice(1)));
