// The sandbox page: a Discord channel, simply. One websocket to the sandbox (see web.py):
// it pushes what changes; we send what the person does (commands, autocomplete, clicks, menus).
"use strict";

const $ = (id) => document.getElementById(id);
const state = {
  ws: null, me: null, people: [], users: {}, bot: null, guild: null, channels: [], commands: [],
  messages: new Map(), current: null, unread: new Set(), dismissed: new Set(),
  pending: new Map(), nextReq: 1, notices: [], popup: null, active: 0, acSeq: 0, highlight: null,
};

// ------------------------------------------------------------------ the connection

function personKey() {
  return new URLSearchParams(location.search).get("as") || "alice";
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const ws = new WebSocket(`${scheme}://${location.host}/ws?as=${encodeURIComponent(personKey())}`);
  state.ws = ws;
  ws.onmessage = (event) => receive(JSON.parse(event.data));
  ws.onopen = () => $("connection").classList.add("up");
  ws.onclose = () => {
    $("connection").classList.remove("up");
    for (const done of state.pending.values()) done({ error: "The sandbox stopped." });
    state.pending.clear();
    if (state.ws === ws) setTimeout(connect, 1000);
  };
}

function request(body) {
  return new Promise((resolve) => {
    const req = state.nextReq++;
    state.pending.set(req, resolve);
    if (!state.ws || state.ws.readyState !== WebSocket.OPEN) {
      state.pending.delete(req);
      resolve({ error: "Not connected to the sandbox." });
      return;
    }
    state.ws.send(JSON.stringify({ ...body, req }));
  });
}

function receive(frame) {
  if (frame.op === "hello") {
    Object.assign(state, {
      me: frame.me, people: frame.people, users: frame.users, bot: frame.bot, guild: frame.guild,
      channels: frame.channels, commands: frame.commands, messages: new Map(),
      unread: new Set(), notices: [],
    });
    for (const m of frame.messages) state.messages.set(m.id, m);
    $("guild-name").textContent = frame.guild.name;
    document.title = `${frame.me.name} · Spite & Malice sandbox`;
    const wanted = state.current || location.hash.slice(1);
    state.current = state.channels.some((c) => c.id === wanted) ? wanted
      : state.channels.length ? state.channels[0].id : null;
    renderPeople(); renderChannels(); renderMessages(true); updateComposer();
  } else if (frame.op === "channels") {
    const known = new Set(state.channels.map((c) => c.id));
    state.channels = frame.channels; state.users = frame.users; renderChannels();
    // A message that named a channel before the page knew it is drawn again, with its name.
    const added = state.channels.filter((c) => !known.has(c.id)).map((c) => c.id);
    let again = false;
    for (const [id, drawn] of rendered) {
      if (added.some((c) => JSON.stringify(drawn.m).includes(c))) { rendered.delete(id); again = true; }
    }
    if (again) renderMessages(false);
  } else if (frame.op === "commands") {
    state.commands = frame.commands; updateComposer();
  } else if (frame.op === "messages") {
    let here = false;
    for (const m of frame.messages) {
      const known = state.messages.has(m.id);
      if (m.deleted) state.messages.delete(m.id); else state.messages.set(m.id, m);
      if (m.channel === state.current) here = true;
      else if (!known && !m.deleted) state.unread.add(m.channel);
    }
    if (here) renderMessages(false);
    renderChannels();
  } else if (frame.op === "notice") {
    state.notices.push({ channel: frame.channel, text: frame.text, after: lastId(frame.channel) });
    if (frame.channel === state.current) renderMessages(false);
  } else if (frame.op === "done") {
    const done = state.pending.get(frame.req);
    state.pending.delete(frame.req);
    if (done) done(frame);
  }
}

function lastId(channel) {
  let last = "0";
  for (const m of state.messages.values()) if (m.channel === channel) last = m.id;
  return last;
}

// ------------------------------------------------------------------ people and channels

function colour(id) {
  const colours = ["#5865f2", "#3ba55c", "#faa61a", "#ed4245", "#eb459e", "#00a8fc", "#9b84ee"];
  let h = 0;
  for (const ch of String(id)) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  return colours[h % colours.length];
}

function avatar(user, small) {
  const el = document.createElement("div");
  el.className = small ? "avatar small-avatar" : "avatar";
  const isBot = state.bot && user.id === state.bot.id;
  el.style.background = isBot ? "#23a55a" : colour(user.id);
  el.textContent = isBot ? "♠" : (user.name || "?").slice(0, 1).toUpperCase();
  return el;
}

function renderPeople() {
  const box = $("user-switch");
  box.replaceChildren();
  for (const person of state.people) {
    const b = document.createElement("button");
    b.type = "button";
    b.dataset.user = person.key;
    b.setAttribute("role", "radio");
    b.setAttribute("aria-checked", String(state.me && person.id === state.me.id));
    b.append(avatar(person, true), document.createTextNode(person.name));
    b.onclick = () => switchTo(person.key);
    box.append(b);
  }
}

function switchTo(key) {
  drawer(false);
  if (state.me && state.me.key === key) return;
  const params = new URLSearchParams(location.search);
  params.set("as", key);
  history.replaceState(null, "", `?${params}`);
  const old = state.ws;
  state.ws = null;
  if (old) old.close();
  state.messages = new Map();
  connect();
}

function channelName(id) {
  const c = state.channels.find((ch) => ch.id === id);
  return c ? c.name : "unknown";
}

// The buttons are kept and changed in place, never replaced: messages arrive all the time, and a
// button replaced between a press and its release would lose the click.
function renderChannels() {
  const nav = $("channels");
  const old = new Map([...nav.children].map((b) => [b.dataset.id, b]));
  state.channels.forEach((c, i) => {
    let b = old.get(c.id);
    old.delete(c.id);
    if (!b) {
      b = document.createElement("button");
      b.type = "button";
      b.dataset.id = c.id;
      b.onclick = () => openChannel(c.id);
    }
    const looks = (c.thread ? "thread:" : "channel:") + c.name;
    if (b.dataset.looks !== looks) {
      b.dataset.looks = looks;
      b.dataset.name = c.name;
      b.replaceChildren();
      if (!c.thread) {
        const hash = document.createElement("span");
        hash.className = "hash";
        hash.textContent = "#";
        b.append(hash);
      }
      b.append(document.createTextNode(c.name));
    }
    const className = "channel" + (c.thread ? " thread" : "") + (c.archived ? " archived" : "") +
      (c.id === state.current ? " current" : "") + (state.unread.has(c.id) ? " unread" : "");
    if (b.className !== className) b.className = className;
    const title = c.name + (c.archived ? " (archived)" : "");
    if (b.title !== title) b.title = title;
    if (nav.children[i] !== b) nav.insertBefore(b, nav.children[i] || null);
  });
  for (const b of old.values()) b.remove();
}

// On a phone the side list is a drawer (see sandbox.css): opened with the header's button.
const phone = window.matchMedia("(max-width: 600px)");

function drawer(open) {
  $("sidebar").classList.toggle("open", open);
  $("scrim").hidden = !open;
  $("drawer-toggle").setAttribute("aria-expanded", String(open));
}

$("drawer-toggle").addEventListener("click", () => drawer(!$("sidebar").classList.contains("open")));
$("scrim").addEventListener("click", () => drawer(false));
phone.addEventListener("change", () => drawer(false));
document.addEventListener("keydown", (ev) => { if (ev.key === "Escape") drawer(false); });

function openChannel(id) {
  drawer(false);
  state.highlight = null;
  state.current = id;
  history.replaceState(null, "", `${location.search}#${id}`);
  state.unread.delete(id);
  renderChannels();
  renderMessages(true);
  updateComposer();
  if (!phone.matches) $("command").focus();  // on a phone that would open the keyboard
}

// ------------------------------------------------------------------ messages

function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, (ch) => (
    { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[ch]));
}

function relative(seconds, style) {
  const date = new Date(seconds * 1000);
  if (style === "R") {
    const diff = Math.round((seconds * 1000 - Date.now()) / 60000);
    const abs = Math.abs(diff);
    const span = abs < 1 ? "less than a minute" : abs < 60 ? `${abs} minute${abs > 1 ? "s" : ""}`
      : abs < 2880 ? `${Math.round(abs / 60)} hours` : `${Math.round(abs / 1440)} days`;
    return diff >= 0 ? `in ${span}` : `${span} ago`;
  }
  if (style === "t" || style === "T") return date.toLocaleTimeString();
  if (style === "d" || style === "D") return date.toLocaleDateString();
  return date.toLocaleString();
}

// Discord's markdown, the parts the bot uses: code, bold, italic, underline, strike,
// quotes, headings, subtext, masked links, mentions of people and channels, timestamps.
function markdown(text) {
  const kept = [];
  const keep = (html) => { kept.push(html); return `\u0000${kept.length - 1}\u0000`; };
  let s = escapeHtml(text);
  s = s.replace(/```(?:[a-z]*\n)?([\s\S]*?)```/g, (_, code) => keep(`<pre><code>${code}</code></pre>`));
  s = s.replace(/`([^`\n]+)`/g, (_, code) => keep(`<code>${code}</code>`));
  s = s.replace(/&lt;@!?(\d+)&gt;/g, (_, id) => keep(
    `<span class="mention${state.me && id === state.me.id ? " me" : ""}">@${escapeHtml(state.users[id] || (state.bot && id === state.bot.id ? state.bot.name : "unknown"))}</span>`));
  s = s.replace(/&lt;#(\d+)&gt;/g, (_, id) => keep(
    `<a class="channel-link" data-channel="${id}">#${escapeHtml(channelName(id))}</a>`));
  s = s.replace(/&lt;t:(-?\d+)(?::([tTdDfFR]))?&gt;/g, (_, t, style) => keep(
    `<span class="timestamp">${escapeHtml(relative(Number(t), style || "f"))}</span>`));
  s = s.replace(/\[([^\]\n]+)\]\((https?:\/\/[^)\s]+)\)/g, (_, label, url) => keep(link(url, label)));
  s = s.replace(/&lt;(https?:\/\/[^\s<\u0000]+?)&gt;/g, (_, url) => keep(link(url, null)));
  s = s.replace(/https?:\/\/[^\s<\u0000]+[^\s<\u0000.,:;!?)\]]/g, (url) => keep(link(url, null)));
  s = s.replace(/\*\*([\s\S]+?)\*\*/g, "<strong>$1</strong>");
  s = s.replace(/__([\s\S]+?)__/g, "<u>$1</u>");
  s = s.replace(/~~([\s\S]+?)~~/g, "<s>$1</s>");
  s = s.replace(/(^|[^\w*])\*(?!\s)([^*\n]+?)\*(?!\w)/g, "$1<em>$2</em>");
  s = s.replace(/(^|[^\w])_(?!\s)([^_\n]+?)_(?!\w)/g, "$1<em>$2</em>");
  s = s.split("\n").map((line) => {
    if (line.startsWith("-# ")) return `<small class="subtext">${line.slice(3)}</small>`;
    const h = /^(#{1,3}) (.*)$/.exec(line);
    if (h) return `<strong class="h${h[1].length}">${h[2]}</strong>`;
    if (line.startsWith("&gt; ")) return `<span class="quote">▎${line.slice(5)}</span>`;
    return line;
  }).join("\n");
  return s.replace(/\u0000(\d+)\u0000/g, (_, i) => kept[Number(i)]);
}

// A link to a channel, thread or message of the sandbox's own server opens it here (Discord's
// client does the same with its own links); any other link opens in a tab of its own. ``url``
// and ``label`` are already escaped.
function link(url, label) {
  const here = inSandbox(url);
  if (here) {
    const text = label || `#${escapeHtml(channelName(here.channel))}${here.message ? " › 💬" : ""}`;
    return `<a class="channel-link" href="#${here.channel}" data-channel="${here.channel}"` +
      `${here.message ? ` data-message="${here.message}"` : ""}>${text}</a>`;
  }
  return `<a href="${url}" target="_blank" rel="noopener">${label || url}</a>`;
}

// The channel (and message) of the sandbox's server a discord.com address points at, or null.
function inSandbox(url) {
  const ours = /^https:\/\/(?:\w+\.)?discord(?:app)?\.com\/channels\/(\d+)\/(\d+)(?:\/(\d+))?\/?$/.exec(url);
  if (!ours || !state.guild || ours[1] !== state.guild.id ||
      !state.channels.some((c) => c.id === ours[2])) return null;
  return { channel: ours[2], message: ours[3] || null };
}

function html(tag, className, inner) {
  const el = document.createElement(tag);
  if (className) el.className = className;
  if (inner !== undefined) el.innerHTML = inner;
  return el;
}

function renderEmbed(e) {
  const box = html("div", "embed");
  if (e.color !== undefined && e.color !== null) {
    box.style.borderLeftColor = `#${Number(e.color).toString(16).padStart(6, "0")}`;
  }
  if (e.thumbnail) {
    const img = html("img", "embed-thumbnail"); img.src = e.thumbnail; img.alt = ""; box.append(img);
  }
  if (e.author && e.author.name) box.append(html("div", "embed-author", escapeHtml(e.author.name)));
  if (e.title) box.append(html("div", "embed-title", markdown(e.title)));
  if (e.description) box.append(html("div", "embed-description", markdown(e.description)));
  if (e.fields && e.fields.length) {
    const grid = html("div", "embed-fields");
    for (const f of e.fields) {
      const field = html("div", "embed-field" + (f.inline ? " inline" : ""));
      field.append(html("div", "embed-field-name", markdown(f.name || "")),
        html("div", "embed-field-value", markdown(f.value || "")));
      grid.append(field);
    }
    box.append(grid);
  }
  if (e.image) {
    const wrap = html("div", "embed-image");
    const img = document.createElement("img");
    img.src = e.image; img.alt = e.title || "picture"; img.onload = keepAtBottom;
    wrap.append(img); box.append(wrap);
  }
  if (e.footer && e.footer.text) box.append(html("div", "embed-footer", escapeHtml(e.footer.text)));
  return box;
}

function emojiText(emoji) {
  return emoji && emoji.name && !emoji.id ? emoji.name + " " : "";
}

function renderComponents(m) {
  const out = [];
  for (const row of m.components || []) {
    const children = row.type === 1 ? row.components || [] : [row];
    const el = html("div", "row");
    for (const c of children) {
      if (c.type === 2 && c.style === 5) {
        const a = html("a", "component style-5", escapeHtml(emojiText(c.emoji) + (c.label || "")));
        const here = inSandbox(c.url || "");
        if (here) {
          a.href = `#${here.channel}`;
          a.dataset.channel = here.channel;
          if (here.message) a.dataset.message = here.message;
        } else {
          a.href = c.url; a.target = "_blank"; a.rel = "noopener";
        }
        el.append(a);
      } else if (c.type === 2) {
        const b = html("button", `component style-${c.style || 2}`,
          escapeHtml(emojiText(c.emoji) + (c.label || "")));
        b.type = "button";
        b.disabled = Boolean(c.disabled);
        b.dataset.customId = c.custom_id;
        b.onclick = () => act(b, { op: "click", message: m.id, custom_id: c.custom_id }, m.channel);
        el.append(b);
      } else if (c.type === 3) {
        const s = html("select", "component select-menu");
        s.dataset.customId = c.custom_id;
        s.disabled = Boolean(c.disabled);
        const first = document.createElement("option");
        first.value = ""; first.disabled = true; first.selected = true;
        first.textContent = c.placeholder || "Make a selection";
        s.append(first);
        for (const o of c.options || []) {
          const opt = document.createElement("option");
          opt.value = o.value;
          opt.textContent = emojiText(o.emoji) + o.label + (o.description ? ` — ${o.description}` : "");
          s.append(opt);
        }
        s.onchange = () => {
          if (!s.value) return;
          act(s, { op: "select", message: m.id, custom_id: c.custom_id, values: [s.value] }, m.channel);
        };
        el.append(s);
      }
    }
    out.push(el);
  }
  return out;
}

async function act(el, body, channel) {
  el.classList.add("busy");
  const answer = await request(body);
  el.classList.remove("busy");
  if (answer.error) {
    state.notices.push({ channel, text: answer.error, after: lastId(channel) });
    if (channel === state.current) renderMessages(false);
  }
}

function renderMessage(m) {
  const row = html("div", "message" + (m.ephemeral ? " ephemeral" : "") +
    (m.id === state.highlight ? " highlight" : ""));
  row.dataset.id = m.id;
  row.dataset.author = m.author.name;
  row.append(avatar(m.author));
  const body = html("div", "body");
  if (m.command) {
    body.append(html("div", "used", `<b>${escapeHtml(m.command.user)}</b> used <b>/${escapeHtml(m.command.name)}</b>`));
  }
  const head = html("div", "head");
  head.append(html("span", "author", escapeHtml(m.author.name)));
  if (m.author.bot) head.append(html("span", "tag", "BOT"));
  head.append(html("span", "time", escapeHtml(new Date(m.time * 1000).toLocaleTimeString())));
  body.append(head);
  if (m.loading) {
    body.append(html("div", "content loading", `${escapeHtml(m.author.name)} is thinking`));
  } else if (m.content) {
    const content = html("div", "content", markdown(m.content));
    if (m.edited) content.append(html("span", "edited", " (edited)"));
    body.append(content);
  }
  for (const e of m.embeds || []) body.append(renderEmbed(e));
  for (const a of m.attachments || []) {
    const box = html("div", "attachment");
    if (a.image) {
      const img = document.createElement("img");
      img.src = a.url; img.alt = a.description || a.filename; img.onload = keepAtBottom;
      if (a.width) { img.width = Math.min(a.width, 560); }
      box.append(img);
    } else {
      const link = html("a", "file", `📄 ${escapeHtml(a.filename)}`);
      link.href = a.url; link.download = a.filename;
      box.append(link);
    }
    body.append(box);
  }
  body.append(...renderComponents(m));
  if (m.ephemeral) {
    const note = html("div", "ephemeral-note", "Only you can see this · ");
    const dismiss = html("a", "dismiss", "Dismiss message");
    dismiss.href = "#";
    dismiss.onclick = (ev) => { ev.preventDefault(); state.dismissed.add(m.id); row.remove(); };
    note.append(dismiss);
    body.append(note);
  }
  row.append(body);
  return row;
}

let stick = true;

function keepAtBottom() {
  if (stick) $("messages").scrollTop = $("messages").scrollHeight;
}

const rendered = new Map();  // message id -> { m, el }: a message is drawn again only if it changed

// The message a pointer is pressed on is not drawn anew until the pointer is released: a click
// is a press and a release on one element, and an edit that came in between (another person's
// click on the same message) would put a new button under the release, and the click would be
// lost. Drawn once the click has been handled.
let pressed = null;
$("messages").addEventListener("pointerdown", (ev) => {
  const row = ev.target.closest(".message");
  pressed = row ? row.dataset.id : null;
});
for (const type of ["pointerup", "pointercancel"]) {
  document.addEventListener(type, () => {
    if (pressed === null) return;
    pressed = null;
    setTimeout(() => renderMessages(false));  // after the click this release makes
  });
}

function renderMessages(reset) {
  const box = $("messages");
  stick = reset || box.scrollHeight - box.scrollTop - box.clientHeight < 80;
  if (reset) rendered.clear();
  const shown = [...state.messages.values()]
    .filter((m) => m.channel === state.current && !state.dismissed.has(m.id))
    .sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
  const notices = state.notices.filter((n) => n.channel === state.current);
  const noticeElement = (n) => (n.el = n.el || html("div", "notice", escapeHtml(n.text)));
  const elements = notices.filter((n) => n.after === "0").map(noticeElement);
  const keep = new Set();
  for (const m of shown) {
    let drawn = rendered.get(m.id);
    if (!drawn || (drawn.m !== m && m.id !== pressed)) {
      drawn = { m, el: renderMessage(m) };
      rendered.set(m.id, drawn);
    }
    keep.add(m.id);
    elements.push(drawn.el);
    for (const n of notices) if (n.after === m.id) elements.push(noticeElement(n));
  }
  for (const id of [...rendered.keys()]) if (!keep.has(id)) rendered.delete(id);
  if (!elements.length) elements.push(html("div", "empty", "No messages yet. Type / to see the commands."));
  // Only what changed is replaced, so a menu someone is choosing in stays open.
  elements.forEach((el, i) => {
    if (box.children[i] !== el) box.insertBefore(el, box.children[i] || null);
  });
  while (box.children.length > elements.length) box.lastChild.remove();
  $("channel-name").textContent = channelName(state.current);
  keepAtBottom();
}

$("messages").addEventListener("click", (ev) => {
  const link = ev.target.closest("a[data-channel]");
  if (!link) return;
  ev.preventDefault();
  openChannel(link.dataset.channel);
  if (link.dataset.message) showMessage(link.dataset.message);
});

// Scroll to a message and mark it (a link to it was followed), and stay there.
function showMessage(id) {
  const el = $("messages").querySelector(`.message[data-id="${id}"]`);
  if (!el) return;
  state.highlight = id;  // kept when the message is drawn again (edited)
  el.classList.add("highlight");
  el.scrollIntoView({ block: "center" });
  stick = false;
}

// ------------------------------------------------------------------ the command box

function command(name) {
  return state.commands.find((c) => c.name === name);
}

// Discord's option names: lower-case letters, digits, "-" and "_" (opponent2, per_card). A
// "name:" starts an option wherever it follows a space, in any order; one that isn't the
// command's is an error said as such, never a part of the value before it.
const OPTION_MARK = /(^|\s)([A-Za-z][\w-]*):(?!\/\/)/g;

// "/play card:7H to:C1" -> the command, its options so far, what is being typed, and what
// can't be read (errors, said before anything is sent).
function parse(text) {
  let head = /^\/(\S*)(\s?)/.exec(text);
  if (!head) return { kind: "text" };
  let name = head[1].toLowerCase();
  if (!head[2]) return { kind: "command", prefix: name };
  if (!command(name) && state.commands.some((c) => c.name.startsWith(name + " "))) {
    // A group: its subcommand is the next word ("/tournament create name:Cup").
    const two = /^\/(\S*)\s(\S*)(\s?)/.exec(text);
    name = `${name} ${two[2].toLowerCase()}`;
    if (!two[3]) return { kind: "command", prefix: name };
    head = [two[0], name, two[3]];
  }
  const cmd = command(name);
  const rest = text.slice(head[0].length);
  if (!cmd) return { kind: "unknown", name, options: looseOptions(rest) };
  const known = new Set(cmd.options.map((o) => o.name));
  const marks = [];
  OPTION_MARK.lastIndex = 0;
  let match;
  while ((match = OPTION_MARK.exec(rest))) {
    marks.push({ name: match[2].toLowerCase(), written: match[2],
      at: match.index + match[1].length, value: match.index + match[0].length });
  }
  const result = { kind: "options", cmd, options: {}, focused: null, value: "", prefix: "",
    free: marks.length ? rest.slice(0, marks[0].at).trim() : rest.trim(), errors: [] };
  const raws = {};
  marks.forEach((mark, i) => {
    const end = i + 1 < marks.length ? marks[i + 1].at : rest.length;
    const raw = rest.slice(mark.value, end);
    if (!known.has(mark.name)) {
      result.errors.push(`/${cmd.name} has no option ${mark.written}: its options are ` +
        `${cmd.options.map((o) => o.name).join(", ") || "none"}.`);
    } else if (mark.name in raws) {
      result.errors.push(`${mark.name} is given twice: give each option once.`);
    } else {
      raws[mark.name] = raw;
      result.options[mark.name] = raw.trim();
    }
  });
  const last = marks[marks.length - 1];
  if (!last) {
    result.prefix = rest.trim();
    return result;
  }
  if (!known.has(last.name) || raws[last.name] === undefined) return result;
  const raw = rest.slice(last.value);
  const word = /\s(\S*)$/.exec(raw);
  if (raw.length && /\s$/.test(raw)) {
    result.prefix = "";
  } else if (word && raw.trim().includes(" ") &&
             cmd.options.some((o) => o.name.startsWith(word[1]) && !(o.name in raws))) {
    // "opponent:Bob opp": the start of the next option's name, not more of Bob's.
    result.prefix = word[1];
    result.options[last.name] = raw.slice(0, raw.length - word[0].length).trim();
  } else {
    result.focused = last.name;
    result.value = raw;
  }
  return result;
}

// Why ``p`` (read from the whole command, as it would be sent) can't be sent, or null.
function problem(p) {
  if (p.kind === "text") return "Only slash commands here: type / and pick one.";
  if (p.kind !== "options") return null;
  const name = p.cmd.name;
  const names = p.cmd.options.map((o) => o.name);
  if (p.errors.length) return p.errors[0];
  if (p.free) {
    return names.length ? `Give each option as name:value, e.g. /${name} ${names[0]}:…`
      : `/${name} takes no options.`;
  }
  if (p.prefix) {
    return names.includes(p.prefix) ? `Write ${p.prefix}: with a colon, then its value.`
      : `/${name} has no option ${p.prefix}.`;
  }
  for (const o of p.cmd.options) {
    const value = p.options[o.name];
    if (value === undefined) continue;
    if (value === "") return `${o.name}: has no value: give one after the colon.`;
    const word = value.split(/\s+/).find((w) => names.includes(w.toLowerCase()) &&
      !(o.choices || []).some((c) => String(c.value).toLowerCase() === value.toLowerCase()));
    if (word) {
      return `${word} needs a colon (${word}:…); as it is, it would be read as part of ` +
        `${o.name}'s value.`;
    }
  }
  return null;
}

function looseOptions(rest) {
  const out = {};
  const re = /([a-z][\w-]*):(\S*)/g;
  let m;
  while ((m = re.exec(rest))) out[m[1]] = m[2];
  return out;
}

function showPopup(title, items) {
  const popup = $("popup");
  state.popup = items.length ? items : null;
  state.active = Math.min(state.active, Math.max(0, items.length - 1));
  if (!items.length) { popup.hidden = true; return; }
  popup.replaceChildren(html("div", "popup-title", escapeHtml(title)));
  items.forEach((item, i) => {
    const row = html("div", "choice" + (i === state.active ? " active" : ""));
    row.dataset.value = item.value;
    row.append(html("span", "name", escapeHtml(item.label)));
    if (item.note) row.append(html("span", "description", escapeHtml(item.note)));
    if (item.shown) row.append(html("span", "value", escapeHtml(item.shown)));
    row.onmousedown = (ev) => { ev.preventDefault(); pick(item); };
    popup.append(row);
  });
  popup.hidden = false;
}

function hidePopup() { state.popup = null; state.acSeq++; $("popup").hidden = true; }

function pick(item) {
  const input = $("command");
  input.value = item.apply(input.value);
  input.focus();
  state.active = 0;
  updateComposer();
}

function replaceValue(value) {
  return (text) => text.replace(/:[^:]*$/, ":" + value + " ");
}

function renderHint(p) {
  const hint = $("hint");
  if (p.kind !== "options") {
    hint.textContent = p.kind === "unknown" ? `/${p.name} is not one of this bot's commands (it will answer).`
      : p.kind === "text" && $("command").value ? "Only slash commands here: type / to see them." : "";
    return;
  }
  hint.replaceChildren(html("b", "", `/${escapeHtml(p.cmd.name)} `));
  for (const o of p.cmd.options) {
    const span = html("span", "opt" + (o.required ? " required" : "") + (o.name === p.focused ? " current" : ""), escapeHtml(o.name));
    span.title = o.description || "";
    hint.append(span);
  }
  const focused = p.cmd.options.find((o) => o.name === p.focused);
  hint.append(document.createTextNode(focused ? ` — ${focused.description}` : ` — ${p.cmd.description}`));
  if (p.errors.length) hint.append(html("div", "hint-error", escapeHtml(p.errors[0])));
}

let acTimer = null;

function updateComposer() {
  const input = $("command");
  const where = state.current ? channelName(state.current) : "";
  input.placeholder = `Type / for commands in ${where.includes(" ") ? where : "#" + where}`;
  const p = parse(input.value);
  renderHint(p);
  // Suggestions asked for what the box said before are not wanted any more.
  clearTimeout(acTimer);
  state.acSeq++;
  if (!input.value || p.kind === "text" || p.kind === "unknown") { hidePopup(); return; }
  if (p.kind === "command") {
    const items = state.commands.filter((c) => c.name.startsWith(p.prefix)).map((c) => ({
      label: `/${c.name}`, note: c.description, value: c.name,
      apply: () => `/${c.name} `,
    }));
    showPopup("Commands", items);
    return;
  }
  if (!p.focused) {
    const used = new Set(Object.keys(p.options));
    const items = p.cmd.options.filter((o) => !used.has(o.name) && o.name.startsWith(p.prefix))
      .sort((a, b) => Number(Boolean(b.required)) - Number(Boolean(a.required)))
      .map((o) => ({
        label: o.name + (o.required ? "*" : ""), note: o.description, value: o.name,
        apply: (text) => text.replace(/\S*$/, "") + (/\s$/.test(text.replace(/\S*$/, "")) ? "" : " ") + o.name + ":",
      }));
    showPopup(`Options of /${p.cmd.name}`, items);
    return;
  }
  const option = p.cmd.options.find((o) => o.name === p.focused);
  const typed = p.value.trim().toLowerCase();
  if (option.choices) {
    showPopup(option.name, option.choices.filter((c) => `${c.name} ${c.value}`.toLowerCase().includes(typed))
      .map((c) => ({ label: c.name, shown: String(c.value), value: String(c.value), apply: replaceValue(String(c.value)) })));
  } else if (option.type === 6 || option.type === 9) {
    const everyone = [...Object.entries(state.users)].map(([id, name]) => ({ id, name }));
    showPopup(option.name, everyone.filter((u) => u.name.toLowerCase().includes(typed.replace(/^@/, "")))
      .map((u) => ({ label: u.name, note: state.bot && u.id === state.bot.id ? "the computer" : "", value: u.name, apply: replaceValue(u.name) })));
  } else if (option.type === 5) {
    showPopup(option.name, ["True", "False"].filter((v) => v.toLowerCase().startsWith(typed))
      .map((v) => ({ label: v, value: v, apply: replaceValue(v) })));
  } else if (option.autocomplete) {
    const seq = state.acSeq;
    acTimer = setTimeout(async () => {
      const answer = await request({
        op: "autocomplete", channel: state.current, command: p.cmd.name,
        focused: option.name, value: p.value.trim(), options: p.options,
      });
      if (seq !== state.acSeq) return;
      const choices = answer.choices || [];
      showPopup(choices.length ? `${option.name}: suggestions` : option.name, choices.map((c) => ({
        label: c.name, shown: String(c.value), value: String(c.value), apply: replaceValue(String(c.value)),
      })));
    }, 120);
  } else {
    hidePopup();
  }
}

async function submit() {
  const input = $("command");
  const text = input.value.trim();
  if (!text) return;
  const p = parse(text + " ");
  const error = problem(p);
  if (error) { refuse(error); return; }
  let name; let options;
  if (p.kind === "options") { name = p.cmd.name; options = p.options; }
  else if (p.kind === "unknown") { name = p.name; options = p.options; }
  else { name = p.prefix; options = {}; }
  hidePopup();
  const answer = await request({ op: "slash", channel: state.current, command: name, options });
  if (answer.error) { refuse(answer.error); return; }
  refuse(null);
  input.value = "";
  updateComposer();
}

function refuse(text) {
  const box = $("refusal");
  box.hidden = !text;
  box.textContent = text || "";
}

$("command").addEventListener("input", () => { state.active = 0; refuse(null); updateComposer(); });
// The suggestions go a moment after the box loses focus (so a click on one still lands),
// unless the box has it back by then.
let blurTimer = null;
$("command").addEventListener("blur", () => {
  blurTimer = setTimeout(() => { blurTimer = null; hidePopup(); }, 150);
});
$("command").addEventListener("focus", () => {
  if (blurTimer !== null) { clearTimeout(blurTimer); blurTimer = null; }
  updateComposer();
});
$("command").addEventListener("keydown", (ev) => {
  const items = state.popup;
  if (ev.key === "Escape") { hidePopup(); return; }
  if (items && (ev.key === "ArrowDown" || ev.key === "ArrowUp")) {
    ev.preventDefault();
    state.active = (state.active + (ev.key === "ArrowDown" ? 1 : items.length - 1)) % items.length;
    showPopup($("popup").firstChild.textContent, items);
    return;
  }
  if (ev.key === "Tab" && items) { ev.preventDefault(); pick(items[state.active]); return; }
  if (ev.key === "Enter") {
    ev.preventDefault();
    const p = parse($("command").value);
    // Enter takes the highlighted suggestion while a name or value is being typed, and sends
    // the command once it is complete (as in Discord).
    const typing = (p.kind === "command" && !command(p.prefix)) ||
      (p.kind === "options" && (p.prefix || (p.focused &&
        !(items || []).some((i) => i.value.toLowerCase() === p.value.trim().toLowerCase()))));
    if (items && typing) { pick(items[state.active]); return; }
    submit();
  }
});
$("composer").addEventListener("submit", (ev) => { ev.preventDefault(); submit(); });

connect();
