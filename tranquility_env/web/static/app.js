// The page of `tranquility serve`: draws what the server sends for the person's seat and sends
// the moves they click. It never holds more than that seat may know: the server sends no other
// hand, no deck and no seed. Everything from the server or a replay file reaches the page as text
// (`el`, `textContent`), never as HTML.
"use strict";

const $ = (id) => document.getElementById(id);

// An element with its properties (className, dataset, value, ...) and its children: nodes, or
// strings made text nodes.
function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (key === "dataset") Object.assign(node.dataset, value);
    else node[key] = value;
  }
  node.append(...children.filter((c) => c !== null && c !== undefined && c !== false).map((c) => (typeof c === "string" || typeof c === "number" ? String(c) : c)));
  return node;
}
const ROW_SLOTS = { 1: 9, 2: 8, 3: 7, 4: 6, 5: 5, 6: 4, 7: 3, 8: 2, 9: 1 };
let options = null;
let game = null; // the last state the server sent
let seen = 0; // events already in the log
let selected = []; // cards of the hand chosen for the next move
let discarding = false;
let poller = null;

async function api(path, body) {
  const init = body === undefined ? {} : { method: "POST", headers: { "Content-Type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body) };
  const response = await fetch(path, init);
  const data = await response.json().catch(() => ({ error: `the server answered ${response.status}` }));
  if (!response.ok) throw Object.assign(new Error(data.error || `the server answered ${response.status}`), { status: response.status });
  return data;
}

// ---------------------------------------------------------------- cards and the mountain
function cardClass(name) {
  if (name === "BRIDGE") return "card bridge";
  if (name === "SUMMIT") return "card summit";
  if (name === "ROPE") return "card rope";
  if (name.startsWith("CAMP-")) return `card camp ${name.slice(5)}`;
  return `card ${name[0]}`;
}

// What a card shows: its text, and a goat for a goat card.
function cardLabel(name) {
  if (name === "BRIDGE") return ["=="];
  if (name === "SUMMIT") return ["▲"];
  if (name === "ROPE") return ["rope"];
  if (name.startsWith("CAMP-")) return [`^${name.slice(5)}`];
  return name.endsWith("*") ? [name.slice(0, -1), el("span", { className: "goat-mark" }, "🐐")] : [name];
}

// What a card is, in words: every card and slot carries it as its tooltip (COLOURS: below).
function cardTitle(name) {
  if (name === "BRIDGE") return "Bridge (==): no colour, no number; the card to its right pays no penalty";
  if (name === "SUMMIT") return "Summit (▲): the last card, on row 9, once the 44 slots below hold cards and no bridge is left";
  if (name === "ROPE") return "Guide rope (solo): shuffle the rest of your hand into your deck and draw again";
  if (name.startsWith("CAMP-")) return `Campfire, ${COLOURS[name.slice(5)]} (^${name.slice(5)}): replaces a ${COLOURS[name.slice(5)]} card, which moves to a higher row`;
  const goat = name.endsWith("*") ? ", a goat card (🐐)" : "";
  return `${COLOURS[name[0]]} ${parseInt(name.slice(1), 10)}${goat}`;
}

function cardElement(name, props = {}) {
  return el("div", { className: cardClass(name), title: cardTitle(name), ...props }, ...cardLabel(name));
}

function drawMountain(box, view, targets, onSlot) {
  box.replaceChildren();
  for (let r = 9; r >= 1; r--) {
    const row = document.createElement("div");
    row.className = "row";
    const label = document.createElement("span");
    label.className = "row-label";
    label.textContent = r === 9 ? "" : r;
    row.appendChild(label);
    for (let c = 1; c <= ROW_SLOTS[r]; c++) {
      const pos = `r${r}c${c}`;
      const slot = document.createElement("div");
      slot.dataset.pos = pos;
      const card = view.mountain[pos];
      slot.className = "slot" + (card ? " " + cardClass(card) : "");
      const says = [`Row ${r}, slot ${c}: ${card ? cardTitle(card) : "empty"}`];
      if (card) slot.append(...cardLabel(card));
      const goats = (view.goats || {})[pos];
      if (goats) {
        slot.append(el("span", { className: "goats" }, `🐐${goats}`));
        says.push(`${goats} goat${goats === 1 ? "" : "s"} here`);
      }
      if (targets && targets[pos] !== undefined) {
        slot.classList.add("target");
        slot.append(el("span", { className: "cost" }, String(targets[pos])));
        says.push(`your move may go here: ${targets[pos]} (cards paid from your hand)`);
      }
      slot.title = says.join("; ");
      if (onSlot) pressable(slot, () => onSlot(pos), targets && targets[pos] !== undefined);
      row.appendChild(slot);
    }
    box.appendChild(row);
  }
}

function drawModules(box, view) {
  const parts = [];
  const cfg = view.config;
  if (view.panorama) {
    view.panorama.objectives.forEach((seq, i) => {
      parts.push(el("span", { className: "objective" + (view.panorama.achieved[i] ? " done" : "") }, seq.join("-")));
    });
  }
  if (cfg.green_path) parts.push(el("span", {}, "Green Path: a green chain from row 1 to row 8 is needed"));
  if (cfg.goats) parts.push(el("span", {}, `Goats: ${cfg.goats_needed} on row 8 are needed`));
  box.replaceChildren(...parts.flatMap((part, i) => (i ? [" ", part] : [part])));
}

function drawSeats(box, view, names, human, thinking) {
  box.replaceChildren(...view.players.map((p, s) => el("div",
    { className: "seat" + (s === view.current && view.status === "ongoing" ? " current" : ""), dataset: { seat: s } },
    el("div", { className: "name" }, `Seat ${s}: ${s === human ? "You" : names[s]}`,
      s === thinking ? " " : null, s === thinking ? el("span", { className: "thinking" }, "thinking") : null),
    el("div", {}, `hand ${p.hand_size} · deck ${p.deck_size} · discards ${p.discard_size}`))));
}

// ---------------------------------------------------------------- the person's moves
function legal() { return game ? game.moves.map((m) => m.move) : []; }

function targetsFor(card) {
  const out = {};
  for (const m of game.moves) {
    const [verb, what, pos] = m.move.split(" ");
    if ((verb === "play" || verb === "camp") && what === card) out[pos] = m.cost;
    if (!card && (verb === "move" || verb === "step" || verb === "herd")) out[what] = m.cost;
  }
  return out;
}

async function send(move) {
  $("message").textContent = "";
  try {
    const state = await api(`/api/games/${game.id}/moves`, { move, decision: game.decision });
    selected = []; discarding = false;
    show(state);
  } catch (err) {
    $("message").textContent = err.message;
  }
}

function clickCard(card) {
  const moves = legal();
  if (moves.includes(`pay ${card}`)) return send(`pay ${card}`);
  if (discarding) {
    selected.push(card);
    if (selected.length === 2) {
      const pair = moves.find((m) => m.startsWith("discard ") && [...m.split(" ").slice(1)].sort().join() === [...selected].sort().join());
      return send(pair || `discard ${selected[0]} ${selected[1]}`);
    }
  } else {
    selected = selected[0] === card ? [] : [card];
  }
  drawTable();
}

function clickSlot(pos) {
  if (!game || game.outcome) return;
  const moves = legal();
  if (selected.length === 1 && !discarding) {
    const card = selected[0];
    const verb = card.startsWith("CAMP-") ? "camp" : "play";
    return send(`${verb} ${card} ${pos}`);
  }
  for (const verb of ["move", "step", "herd"]) {
    if (moves.includes(`${verb} ${pos}`)) return send(`${verb} ${pos}`);
  }
  $("message").textContent = moves.length ? "Choose a card of your hand first, then a highlighted slot." : "It is not your turn.";
}

function drawActions() {
  const box = $("actions");
  box.replaceChildren();
  const moves = legal();
  const add = (label, handler, enabled = true) => {
    const b = document.createElement("button");
    b.textContent = label; b.disabled = !enabled; b.addEventListener("click", handler);
    box.appendChild(b);
  };
  if (moves.some((m) => m.startsWith("discard "))) {
    add(discarding ? `Discarding: choose ${2 - selected.length} card(s)` : "Discard two", () => {
      discarding = !discarding; selected = []; drawTable();
    });
  }
  if (moves.includes("rope")) add("Use a rope", () => send("rope"));
  if (moves.includes("stop")) add("Stop herding", () => send("stop"));
  const pending = game.view.pending || {};
  const owed = pending.owed;
  if (pending.kind === "move" && moves.some((m) => m.startsWith("move "))) {
    const row = pending.from.slice(1, pending.from.indexOf("c"));
    box.append(el("span", { className: "owed" }, `Your campfire took ${pending.card}'s place on row ${row}: click a lit slot higher up for it.`));
  }
  if (pending.kind === "herd" && moves.some((m) => m.startsWith("step ") || m === "stop")) {
    const steps = `${pending.steps} step${pending.steps === 1 ? "" : "s"} so far`;
    box.append(el("span", { className: "owed" }, `Herding the goats (${steps}): click a lit slot for the next step, or stop.`));
  }
  if (moves.some((m) => m.startsWith("pay "))) {
    box.append(el("span", { className: "owed" }, `Pay ${owed} more card${owed === 1 ? "" : "s"}: click a card of your hand.`));
  }
}

// A card or slot used like a button: a click, or Enter or Space once focused; ``focusable`` puts it
// in the Tab order (the hand's cards on your turn, the slots lit for your move).
function pressable(node, handler, focusable) {
  node.addEventListener("click", handler);
  if (!focusable) return;
  node.tabIndex = 0;
  node.setAttribute("role", "button");
  node.addEventListener("keydown", (event) => {
    if (event.key !== "Enter" && event.key !== " ") return;
    event.preventDefault();
    handler();
  });
}

function drawTable() {
  const focused = document.activeElement && document.activeElement.dataset ? { ...document.activeElement.dataset } : {};
  drawBoard();
  // The keyboard's place survives the redraw: a card chosen by key hands the focus to its first lit
  // slot; otherwise the same card or slot keeps it.
  const lit = $("mountain").querySelector(".slot.target");
  if (focused.card && lit && selected.includes(focused.card)) lit.focus();
  else if (focused.card) document.querySelector(`#hand .card[data-card="${CSS.escape(focused.card)}"]`)?.focus();
  else if (focused.pos) document.querySelector(`#mountain .slot[data-pos="${CSS.escape(focused.pos)}"]`)?.focus();
}

function drawBoard() {
  const view = game.view;
  const me = view.players[game.human];
  const mine = game.moves.length > 0;
  const card = selected.length === 1 && !discarding ? selected[0] : null;
  drawMountain($("mountain"), view, mine ? targetsFor(card) : null, clickSlot);
  drawModules($("modules"), view);
  drawSeats($("seats"), view, game.seats, game.human, game.thinking);
  const hand = $("hand");
  hand.replaceChildren();
  const payable = legal().filter((m) => m.startsWith("pay ")).map((m) => m.slice(4));
  (me.hand || []).forEach((name) => {
    const b = cardElement(name, { dataset: { card: name } });
    if (selected.includes(name)) b.classList.add("selected");
    if (payable.includes(name)) b.classList.add("payable");
    pressable(b, () => mine && clickCard(name), mine);
    hand.appendChild(b);
  });
  drawActions();
  // Every legal move, one click away; the discards (up to ten pairs) folded into one line.
  const moveButton = (m) => el("button", { dataset: { move: m.move }, onclick: () => send(m.move) }, `${m.move} (${m.cost})`);
  const discards = game.moves.filter((m) => m.move.startsWith("discard "));
  const open = Boolean($("move-list").querySelector("details.discards")?.open); // kept open across redraws
  $("move-list").replaceChildren(...game.moves.filter((m) => !discards.includes(m)).map(moveButton),
    ...(discards.length ? [el("details", { className: "discards", open },
      el("summary", {}, `Discard two: ${discards.length} pair${discards.length === 1 ? "" : "s"}`),
      ...discards.map(moveButton))] : []));
  const whose = view.current === game.human ? "Your turn" : `Seat ${view.current} (${game.seats[view.current]}) is to act`;
  $("status").replaceChildren(`Turn ${view.turn} · ${game.cards_on_mountain} of 44 cards on the mountain · ` +
    (game.outcome ? "game over" : whose), ...(game.thinking !== null ? [" · ", el("span", { className: "thinking" }, "a bot is thinking")] : []));
}

// A move as a person says it: "played B8 on row 5", "discarded two cards", "used a rope". The
// text is the move's N2 form (a bot's discards and payments come as "discards two cards" etc.).
const COLOURS = { G: "green", B: "blue", R: "red" };

function inWords(text) {
  const [verb, a, b] = text.split(" ");
  const row = (pos) => `row ${pos.slice(1, pos.indexOf("c"))}`;
  const card = (name) => name === "SUMMIT" ? "the Summit" : name === "BRIDGE" ? "a bridge" : name.replace("*", " with a goat");
  switch (verb) {
    case "play": return a === "SUMMIT" ? "played the Summit" : `played ${card(a)} on ${row(b)}`;
    case "camp": return `set a ${COLOURS[a.slice(5)] || ""} campfire on ${row(b)}`;
    case "discard": return `discarded ${card(a)} and ${card(b)}`;
    case "pay": return `paid ${card(a)}`;
    case "move": return `moved the displaced card to ${row(a)}`;
    case "herd": return `started herding the goats at ${row(a)}`;
    case "step": return `moved the herd to ${row(a)}`;
    case "stop": return "stopped herding";
    case "rope": return "used a rope";
    case "discards": return "discarded two cards";
    case "pays": return "paid a card";
    default: return text;
  }
}

function show(state) {
  // A poll and a move may answer out of order: an older state than the one shown changes nothing.
  if (game && state.id === game.id && state.decision < game.decision) return;
  game = state;
  const first = state.decision - state.events.length; // the index of the first event sent
  state.events.forEach((e, k) => {
    if (first + k < seen) return; // already in the log
    const who = e.seat === state.human ? "You" : `Seat ${e.seat} (${state.seats[e.seat]})`;
    const li = el("li", { dataset: { seat: e.seat } }, `${who} ${inWords(e.text)}`);
    $("log").append(li); // oldest first: the newest at the bottom
  });
  $("log").scrollTop = $("log").scrollHeight; // the newest in view, within the log (the page stays put)
  seen = state.decision;
  drawTable();
  if (state.outcome) {
    clearInterval(poller); poller = null;
    $("end-title").textContent = state.outcome === "won" ? "The team won!" : state.outcome === "quit" ? "You left the game" : "The team lost";
    $("end-text").textContent = (state.why ? `${state.why} ` : "") +
      `${state.cards_on_mountain} of 44 cards on the mountain after ${state.view.turn} turns. Its replay is under Replays.`;
    $("watch").hidden = false;
    $("end").hidden = false;
  }
}

async function poll() {
  if (!game || game.outcome) return;
  try {
    const state = await api(`/api/games/${game.id}?since=${seen}`);
    if (state.decision !== game.decision || state.thinking !== game.thinking || state.outcome) show(state);
  } catch (err) {
    if (err.status === 404) return gone(err.message);
    $("message").textContent = err.message;
  }
}

// The server no longer has the game (left alone too long, or the server restarted): say so, stop
// asking, and take the moves away.
function gone(reason) {
  clearInterval(poller); poller = null;
  game = { ...game, moves: [], outcome: "gone" };
  drawTable();
  $("end-title").textContent = "This game has ended";
  $("end-text").textContent = reason;
  $("watch").hidden = true;
  $("end").hidden = false;
}

// ---------------------------------------------------------------- setting up a game
function fillSetup() {
  const players = Number($("players").value);
  $("seat").replaceChildren(...[...Array(players).keys()].map((s) => el("option", { value: s }, String(s))));
  drawBotChoices();
}

// A bot of the list as a person reads it: its label, with a line of help on hover (a checkpoint
// of the server's folder keeps its name).
function botOption(name) {
  const about = options.bot_labels[name];
  return el("option", { value: name, title: about ? about.help : "" }, about ? about.label : name);
}

function drawBotChoices() {
  const players = Number($("players").value);
  const seat = Number($("seat").value);
  const names = [...options.bots, ...options.checkpoints.map((c) => `policy:${c}`)];
  const box = $("bot-seats");
  box.replaceChildren();
  for (let s = 0; s < players; s++) {
    if (s === seat) continue;
    const select = el("select", { className: "bot-choice", dataset: { seat: s } }, ...names.map(botOption));
    box.appendChild(el("label", {}, `Seat ${s} `, select));
  }
}

// The options of the game, one control a field of the server's schema (the game's Config): a new
// field appears here with no change to the page. The server's own table is the first choice; a
// field whose default follows the player count starts at "default".
const fieldId = (name) => name.replaceAll("_", "-");

function drawTableOptions() {
  const box = $("table-options");
  box.replaceChildren(el("legend", {}, "The game"));
  for (const field of options.schema) {
    if (field.name === "players") continue;
    const id = fieldId(field.name), label = field.name.replaceAll("_", " "), set = options.table[field.name];
    if (field.type === "bool") {
      const check = el("input", { type: "checkbox", id, checked: set ?? field.default });
      box.append(el("label", { title: field.help, className: "option" }, check, ` ${label}`));
      continue;
    }
    const values = [];
    for (let v = field.min; v <= field.max; v++) values.push(el("option", { value: v }, String(v)));
    const select = el("select", { id }, ...(field.default === null ? [el("option", { value: "" }, "default")] : []), ...values);
    select.value = String(set ?? field.default ?? "");
    box.append(el("label", { title: field.help, className: "option" }, `${label} `, select));
  }
}

// What the form's game options ask for: every field but players, "default" left to the server.
function tableChoices() {
  const chosen = {};
  for (const field of options.schema) {
    const control = $(fieldId(field.name));
    if (field.name === "players" || !control) continue;
    if (field.type === "bool") chosen[field.name] = control.checked;
    else if (control.value !== "") chosen[field.name] = Number(control.value);
  }
  return chosen;
}

const LEAVE_QUESTION = "Leave this game? It ends for the whole table.";

// The games of this browser still going, to go back to or leave (a browser may have a few at once).
async function listMyGames() {
  const data = await api("/api/games").catch(() => ({ games: [] }));
  const going = data.games.filter((g) => !g.outcome);
  $("my-games").replaceChildren(...going.map((g) => el("li", {},
    `${g.players} players, turn ${g.turn} `,
    el("button", { onclick: async () => enter(await api(`/api/games/${g.id}`)) }, "Go back"), " ",
    el("button", { onclick: async () => {
      if (!confirm(LEAVE_QUESTION)) return;
      await api(`/api/games/${g.id}/quit`, {}).catch(() => {});
      listMyGames();
    } }, "Leave"))));
  $("my-games-box").hidden = going.length === 0;
}

async function start() {
  $("setup-error").textContent = "";
  const body = {
    players: Number($("players").value), seat: Number($("seat").value),
    bots: [...document.querySelectorAll(".bot-choice")].map((s) => s.value),
    ...tableChoices(),
  };
  try {
    enter(await api("/api/games", body));
  } catch (err) {
    $("setup-error").textContent = err.message;
    if (err.status === 429) listMyGames();
  }
}

// Sit at a game: a new one, or the one the address names (a reload keeps your place at the table).
function enter(state) {
  history.replaceState(null, "", `#${state.id}`);
  $("log").replaceChildren(); seen = 0; selected = []; discarding = false;
  $("setup").hidden = true; $("table").hidden = false; $("end").hidden = true;
  $("pace").value = state.pace; $("pace-value").textContent = state.pace;
  game = null;
  clearInterval(poller); poller = null;
  show(state);
  if (!state.outcome) poller = setInterval(poll, 250);
}

// ---------------------------------------------------------------- the replay viewer
let replay = null; // {summary, frames}

async function openReplay(promise) {
  $("replay-error").textContent = "";
  try {
    const summary = await promise;
    const seats = [...Array(summary.players).keys()].map((s) => el("option", { value: s }, `seat ${s}${s === summary.human ? " (the person)" : ""}`));
    if (summary.finished) seats.push(el("option", { value: "all" }, "everyone (the game is over)"));
    $("view-seat").replaceChildren(...seats);
    $("view-seat").value = summary.human ?? 0;
    replay = { summary, frames: [] };
    $("viewer").hidden = false;
    await loadFrames();
  } catch (err) {
    $("replay-error").textContent = err.message;
  }
}

async function loadFrames() {
  const data = await api(`/api/replays/${replay.summary.id}/frames?seat=${$("view-seat").value}`);
  replay.frames = data.frames;
  $("step").max = data.frames.length - 1;
  showFrame(Math.min(Number($("step").value), data.frames.length - 1));
}

function showFrame(k) {
  const frame = replay.frames[k];
  $("step").value = k;
  $("step-label").textContent = `position ${k} of ${replay.frames.length - 1}`;
  const view = frame.view;
  $("frame-move").textContent = k === 0 ? "The deal" : `Seat ${frame.mover}: ${frame.move}`;
  $("frame-why").replaceChildren(...(frame.why ? [`Weighed (${frame.why.kind}): `,
    ...frame.why.top.flatMap(([m, v], i) => [i ? " · " : "", `${m} `, el("b", {}, String(v))])] : []));
  drawMountain($("frame-mountain"), view, null, null);
  drawModules($("frame-modules"), view);
  const seats = replay.summary.seats || [];
  $("frame-seats").replaceChildren(...view.players.map((p, s) => {
    const size = p.hand_size ?? (p.hand || []).length;
    const deck = p.deck_size ?? (p.deck || []).length;
    return el("div", { className: "seat" + (s === view.current ? " current" : "") },
      el("div", { className: "name" }, `Seat ${s}: ${seats[s] || ""}`),
      el("div", {}, `hand ${size} · deck ${deck}`),
      p.hand ? el("div", { className: "hand" }, ...p.hand.map((c) => cardElement(c))) : null);
  }));
}

let replayPage = 1;

// One page of the replays this browser may open: its own ended games, newest first (and the
// folder's files when the server shares them).
async function listReplays(page = replayPage) {
  let data;
  try {
    data = await api(`/api/replays?page=${page}`);
  } catch (err) {
    if (page > 1) return listReplays(1);
    $("replay-error").textContent = err.message;
    return;
  }
  replayPage = data.page;
  $("replay-list").replaceChildren(...data.replays.map((r) => {
    const what = r.error ? ` (${r.error})` :
      ` ${r.date} · ${r.players} player${r.players === 1 ? "" : "s"} · ${r.outcome}` +
      (r.modules.length ? ` · ${r.modules.join(", ")}` : "") + (r.whose === "folder" ? " · from the folder" : "");
    const open = el("button", { onclick: () => openReplay(api(`/api/replays/saved/${encodeURIComponent(r.name)}`, {})) }, r.name);
    return el("li", {}, open, what);
  }));
  $("replay-page").textContent = data.total ? `page ${data.page} of ${data.pages} (${data.total} replay${data.total === 1 ? "" : "s"})` : "No replays yet: finish a game, or open a file.";
  $("replay-prev").disabled = data.page <= 1;
  $("replay-next").disabled = data.page >= data.pages;
}

function showTab(name) {
  $("tab-play").classList.toggle("active", name === "play");
  $("tab-replays").classList.toggle("active", name === "replays");
  $("tab-how").classList.toggle("active", name === "how");
  $("replays").hidden = name !== "replays";
  $("how").hidden = name !== "how";
  $("setup").hidden = name !== "play" || (game && !game.outcome);
  if (name === "play" && !$("setup").hidden) listMyGames();
  $("table").hidden = name !== "play" || !game || !!game.outcome;
  if (name === "replays") listReplays();
}

// ---------------------------------------------------------------- wiring
async function init() {
  options = await api("/api/options");
  $("players").replaceChildren(...[1, 2, 3, 4, 5].map((p) => el("option", { value: p, selected: p === options.players }, String(p))));
  drawTableOptions();
  fillSetup();
  $("players").addEventListener("change", fillSetup);
  $("seat").addEventListener("change", drawBotChoices);
  $("start").addEventListener("click", start);
  $("pace").addEventListener("change", async () => {
    $("pace-value").textContent = $("pace").value;
    if (game) await api(`/api/games/${game.id}/pace`, { pace: Number($("pace").value) }).catch(() => {});
  });
  $("leave").addEventListener("click", async () => {
    if (!game || game.outcome) return;
    if (!confirm(LEAVE_QUESTION)) return;
    try {
      show(await api(`/api/games/${game.id}/quit`, {}));
    } catch (err) {
      if (err.status === 404) gone(err.message); else $("message").textContent = err.message;
    }
  });
  $("again").addEventListener("click", () => {
    game = null; history.replaceState(null, "", "#");
    $("end").hidden = true; $("table").hidden = true; $("setup").hidden = false;
    listMyGames();
  });
  $("watch").addEventListener("click", () => {
    const name = game.replay;
    $("end").hidden = true; showTab("replays");
    openReplay(api(`/api/replays/saved/${encodeURIComponent(name)}`, {}));
  });
  $("tab-play").addEventListener("click", () => showTab("play"));
  $("tab-replays").addEventListener("click", () => showTab("replays"));
  $("tab-how").addEventListener("click", () => showTab("how"));
  $("how-link").addEventListener("click", () => showTab("how"));
  $("replay-file").addEventListener("change", async (e) => {
    const file = e.target.files[0];
    if (file) openReplay(api("/api/replays", { text: await file.text() }));
  });
  $("view-seat").addEventListener("change", loadFrames);
  $("replay-prev").addEventListener("click", () => listReplays(replayPage - 1));
  $("replay-next").addEventListener("click", () => listReplays(replayPage + 1));
  $("step").addEventListener("input", () => showFrame(Number($("step").value)));
  $("first").addEventListener("click", () => showFrame(0));
  $("prev").addEventListener("click", () => showFrame(Math.max(0, Number($("step").value) - 1)));
  $("next").addEventListener("click", () => showFrame(Math.min(replay.frames.length - 1, Number($("step").value) + 1)));
  $("last").addEventListener("click", () => showFrame(replay.frames.length - 1));
  const named = location.hash.slice(1);
  if (named) {
    try {
      enter(await api(`/api/games/${named}`));
    } catch (err) {
      history.replaceState(null, "", "#");
      $("setup-error").textContent = `${err.message}. Start a new game.`;
    }
  }
  if (!game) listMyGames();
}

init();
