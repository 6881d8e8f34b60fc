// Starts Swagger UI on the spec named by the page (no inline script: the page allows none).
// The spec's server is a base URL for generated clients (``{base}``, by default `make run`'s
// address); the page tries calls on the server that serves it instead, the only one its
// Content-Security-Policy lets it reach.
window.addEventListener("DOMContentLoaded", async () => {
  const root = document.getElementById("swagger-ui");
  const spec = await (await fetch(root.dataset.spec)).json();
  spec.servers = [{ url: window.location.origin, description: "This server" }];
  window.ui = SwaggerUIBundle({
    spec,
    dom_id: "#swagger-ui",
    deepLinking: true,
    validatorUrl: null, // the default sends the spec to an outside validator
  });
});
