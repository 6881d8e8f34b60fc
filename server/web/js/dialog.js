// Modal dialogs in the page (an HTML <dialog>: the focus is held inside and Escape cancels),
// for the questions a person must answer before something that cannot be undone, and for
// panels such as the score sheet. Never window.confirm or window.prompt: they block the
// page's streams and cannot be styled or read back in a test.

import { h } from "./dom.js";

/**
 * Shows a modal dialog: a title, a body (elements or text) and buttons `[{label, value,
 * primary}]`, the focus on `focus` if given. Resolves to the value of the button pressed, or
 * null when it was dismissed.
 */
export function openDialog({ title, body, buttons, focus = null }) {
  // The focus goes back where it was (found again by its data-key: a redraw may have
  // rebuilt that control meanwhile).
  const before = document.activeElement?.closest?.("[data-key]")?.dataset.key;
  return new Promise((resolve) => {
    const close = (value) => {
      dialog.close();
      dialog.remove();
      if (before) document.querySelector(`[data-key="${CSS.escape(before)}"]`)?.focus();
      resolve(value);
    };
    const dialog = h(
      "dialog",
      { class: "dialog", "aria-labelledby": "dialog-title", oncancel: (event) => (event.preventDefault(), close(null)) },
      h("h2", { id: "dialog-title" }, title),
      h("div", { class: "dialog-body" }, body),
      h(
        "div",
        { class: "dialog-buttons" },
        buttons.map((button) =>
          h("button", { type: "button", class: button.primary ? "primary" : "", "data-dialog": button.value ?? "cancel", onclick: () => close(button.value ?? null) }, button.label),
        ),
      ),
    );
    document.body.append(dialog);
    dialog.showModal();
    // The field asked for, else the first button (Cancel): never a destructive default.
    (focus || dialog.querySelector("button"))?.focus();
  });
}

/** A yes-or-no question: true when the person confirmed. */
export async function confirmAction(title, text, yes) {
  const answer = await openDialog({ title, body: h("p", {}, text), buttons: [{ label: "Cancel", value: null }, { label: yes, value: "yes", primary: true }] });
  return answer === "yes";
}

/** A short text asked for in the page (a name before taking a seat): the text, trimmed, or
 * "" when dismissed. Enter in the field answers as the button does. */
export async function askText(title, label, yes) {
  const input = h("input", { type: "text", id: "dialog-text", autocomplete: "nickname" });
  input.addEventListener("keydown", (event) => {
    if (event.key !== "Enter") return;
    event.preventDefault();
    input.closest("dialog")?.querySelector('[data-dialog="yes"]')?.click();
  });
  const body = h("label", { class: "dialog-field", for: "dialog-text" }, label, input);
  const answer = await openDialog({ title, body, buttons: [{ label: "Cancel", value: null }, { label: yes, value: "yes", primary: true }], focus: input });
  return answer === "yes" ? input.value.trim() : "";
}
