// The page's entry point: routes the URL to a page (lobby, table, replay, my games, a
// profile, the leaderboard), follows in-page links without reloading, and unmounts the page
// it leaves (its streams and timers). The person's player identity is made on the first visit.

import { askText } from "./dialog.js";
import { h } from "./dom.js";
import { ensureIdentity } from "./identity.js";
import { mountLeaderboard } from "./leaderboardpage.js";
import { mountLobby } from "./lobbypage.js";
import { mountMe } from "./mepage.js";
import { mountProfile } from "./profilepage.js";
import { notFoundPage } from "./notfound.js";
import { mountReplay } from "./replaypage.js";
import { mountTable } from "./tablepage.js";
import { keepName, playerName } from "./seats.js";

const root = document.getElementById("main");
let unmount = null;

async function askName() {
  const known = playerName();
  if (known) return known;
  const typed = await askText("Your name at the table", "Name", "Take the seat");
  if (typed) keepName(typed);
  return typed;
}

export function navigate(path) {
  if (path !== location.pathname) history.pushState(null, "", path);
  route();
}

function route() {
  unmount?.();
  unmount = null;
  const path = location.pathname;
  const table = path.match(/^\/table\/([^/]+)\/?$/);
  const replay = path.match(/^\/replay(?:\/([^/]+))?\/?$/);
  const profile = path.match(/^\/players\/([^/]+)\/?$/);
  const context = { navigate, askName };
  if (table) {
    document.title = "All Fours: table";
    unmount = mountTable(root, decodeURIComponent(table[1]), context);
  } else if (replay) {
    document.title = "All Fours: replay";
    unmount = mountReplay(root, replay[1] ? decodeURIComponent(replay[1]) : null, context);
  } else if (path === "/me" || path === "/me/") {
    document.title = "My games · All Fours";
    unmount = mountMe(root, context);
  } else if (profile) {
    document.title = "Player · All Fours";
    unmount = mountProfile(root, decodeURIComponent(profile[1]), context);
  } else if (path === "/leaderboard" || path === "/leaderboard/") {
    document.title = "Leaderboard · All Fours";
    unmount = mountLeaderboard(root, context);
  } else if (path === "/" || path === "/index.html") {
    document.title = "All Fours";
    unmount = mountLobby(root, context);
  } else {
    document.title = "Not found · All Fours";
    // The server answered this path 404 with the app: say so, in a page.
    root.replaceChildren(notFoundPage("Nothing here", "There is no page at ", h("code", {}, path), "."));
  }
  for (const link of document.querySelectorAll(".topnav a")) {
    const here = link.getAttribute("href") === path || (link.getAttribute("href") === "/replay" && replay);
    if (here) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
}

document.addEventListener("click", (event) => {
  const link = event.target.closest("a[data-link]");
  if (!link || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
  event.preventDefault();
  navigate(link.getAttribute("href"));
});
window.addEventListener("popstate", route);
ensureIdentity(); // silently, once: the games this person sits at are theirs on any device
route();
