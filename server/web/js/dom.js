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
 * `data-key` after the swap, so keyboard play survives redraws; when it is gone (the last card
 * was played), the focus moves to the element marked `data-focus-next`, if any (the rematch
 * button at the end), rather than back to the top of the page.
 */
export function redrawer(root, draw) {
  let pending = false;
  const run = () => {
    pending = false;
    const focused = document.activeElement?.closest?.("[data-key]");
    const key = focused && root.contains(focused) ? focused.dataset.key : null;
    root.replaceChildren(draw());
    if (key) {
      const again = root.querySelector(`[data-key="${CSS.escape(key)}"]`);
      const next = again && !again.disabled ? again : root.querySelector("[data-focus-next]");
      next?.focus({ preventScroll: true });
    }
  };
  return () => {
    if (pending) return;
    pending = true;
    requestAnimationFrame(run);
  };
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
