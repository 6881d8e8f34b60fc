// The DOM helpers of the views: `h` builds elements from data, `redraw` swaps a root's
// content at most once per animation frame and keeps the keyboard focus where it was.

/**
 * An element: `h("button", {class: "x", onclick: f, "aria-label": "…"}, "text", child…)`.
 * Props starting with "on" are listeners; `false`/`null`/`undefined` props and children are
 * left out, so views can write conditions inline.
 */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === false || value === null || value === undefined) continue;
    if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else if (key === "class") el.className = value;
    else if (key === "style") Object.assign(el.style, value); // CSSOM: allowed by the page's CSP
    else if (key === "value") el.value = value;
    else if (key === "checked") el.checked = value;
    else if (key === "disabled") el.disabled = true;
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : String(child));
  }
}

/**
 * Schedules `draw()` (which returns the new content of `root`) for the next animation frame;
 * calls in between coalesce into one redraw. The focused element is found again by its
 * `data-key` after the swap, so keyboard play survives redraws. When it is gone or inert and
 * it belonged to a `data-focus-group` (a card of the hand, just played), the focus goes to the
 * group's nearest playable element (`.playable`), else to its element at the same place, else
 * to the group's home (`data-focus-home`), and is wanted back in the group at later redraws
 * (the next deal); otherwise to the element marked `data-focus-next` (the result at the end)
 * rather than to the top of the page. Scrolled lists (`data-scroll-key`) keep their place, or
 * stay at their end when they were there; an open menu (`details` with a `data-key`) stays open.
 */
export function redrawer(root, draw) {
  let pending = false;
  let wanted = null; // {group, index}: the focus is to come back to this group
  const scrollMemory = new Map(); // per scrolled list: {setTop, pinned}
  const run = () => {
    pending = false;
    const focused = document.activeElement?.closest?.("[data-key]");
    const inside = focused && root.contains(focused);
    const key = inside ? focused.dataset.key : null;
    const lost = !document.activeElement || document.activeElement === document.body;
    if (!inside && !lost) wanted = null; // the person went elsewhere on the page: let them be
    if (inside && focused.dataset.focusGroup) {
      const group = focused.dataset.focusGroup;
      wanted = { group, index: [...root.querySelectorAll(`[data-focus-group="${group}"]`)].indexOf(focused) };
    } else if (inside && !focused.dataset.focusHome) {
      wanted = null;
    }
    const scrolls = scrollPlaces(root, scrollMemory);
    const opened = [...root.querySelectorAll("details[open][data-key]")].map((el) => el.dataset.key);
    root.replaceChildren(draw());
    restoreScrolls(root, scrolls, scrollMemory);
    for (const key of opened) root.querySelector(`details[data-key="${CSS.escape(key)}"]`)?.setAttribute("open", "");
    if (!key && !wanted) return;
    const again = key ? root.querySelector(`[data-key="${CSS.escape(key)}"]`) : null;
    const usable = again && !again.disabled && again.getAttribute("aria-disabled") !== "true";
    const fromHome = inside && focused.dataset.focusHome && wanted; // waiting for cards to come
    const target = (fromHome && inGroup(root, wanted)) || (usable ? again : (wanted && inGroup(root, wanted)) || again || (key ? root.querySelector("[data-focus-next]") : null));
    target?.focus({ preventScroll: true });
  };
  return () => {
    if (pending) return;
    pending = true;
    requestAnimationFrame(run);
  };
}

function inGroup(root, { group, index }) {
  const members = [...root.querySelectorAll(`[data-focus-group="${group}"]`)];
  if (!members.length) return root.querySelector(`[data-focus-home="${group}"]`);
  const playable = members.map((el, i) => [el, i]).filter(([el]) => el.classList.contains("playable"));
  if (playable.length) {
    playable.sort((a, b) => Math.abs(a[1] - index) - Math.abs(b[1] - index));
    return playable[0][0];
  }
  return members[Math.min(Math.max(index, 0), members.length - 1)];
}

/** What a person does to scroll a list (a resize or a rotation moves its place too, and must
 * not unpin it from its end). */
const SCROLL_GESTURES = ["wheel", "touchstart", "pointerdown", "keydown"];

/** Where each scrolled list is, and whether it follows its end: it does until the person
 * scrolls it away from there, and again once they scroll back to the end. */
function scrollPlaces(root, memory) {
  const places = new Map();
  for (const el of root.querySelectorAll("[data-scroll-key]")) {
    const known = memory.get(el.dataset.scrollKey);
    const atEnd = el.scrollTop + el.clientHeight >= el.scrollHeight - 4;
    places.set(el.dataset.scrollKey, { top: el.scrollTop, pinned: known && !known.touched ? known.pinned : atEnd });
  }
  return places;
}

function restoreScrolls(root, places, memory) {
  for (const el of root.querySelectorAll("[data-scroll-key]")) {
    const key = el.dataset.scrollKey;
    const place = places.get(key);
    const pinned = !place || place.pinned;
    el.scrollTop = pinned ? el.scrollHeight : place.top;
    const entry = { pinned, touched: false };
    memory.set(key, entry);
    for (const gesture of SCROLL_GESTURES) el.addEventListener(gesture, () => (entry.touched = true), { passive: true });
  }
}

/** Says `text` to screen readers through the page's polite live region. */
export function announce(text) {
  const region = document.getElementById("announcer");
  if (!region || !text) return;
  const line = document.createElement("p");
  line.textContent = text;
  region.append(line);
  while (region.childElementCount > 8) region.firstElementChild.remove();
}
