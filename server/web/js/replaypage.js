// placeholder replaced below
export function mountReplay(root) {
  root.textContent = "Replay";
  return () => {};
}
