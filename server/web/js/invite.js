// A private table's invitation as a person shares it: the link (the table's address with its
// secret, `/table/<id>?invite=<invite>`) in a read-only field, and a button that copies it.

import { h } from "./dom.js";

/** The link that opens `gameId`'s table and lets its holder sit there. */
export function inviteLink(origin, gameId, invite) {
  return `${origin}/table/${encodeURIComponent(gameId)}?invite=${encodeURIComponent(invite)}`;
}

/** Copies `link`; true if the clipboard took it (a page without the permission may not). */
export async function copyText(link) {
  try {
    await navigator.clipboard.writeText(link);
    return true;
  } catch {
    return false;
  }
}

/** The field and its button; `onCopy(link, field)` copies (and says so). */
export function inviteBox(link, onCopy) {
  const field = h("input", { id: "invite-link", class: "invite-link", readonly: true, value: link, "aria-label": "Invite link", "data-key": "invite-link", onfocus: (event) => event.target.select() });
  return h(
    "div",
    { class: "invite", role: "group", "aria-label": "Invite people" },
    h("span", { class: "invite-note" }, "Private table: only people with this link may sit."),
    field,
    h("button", { type: "button", class: "small primary", id: "copy-invite", "data-key": "copy-invite", onclick: () => onCopy(link, field) }, "Copy invite link"),
  );
}
