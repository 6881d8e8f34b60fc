// Starts Swagger UI on the spec named by the page (no inline script: the page allows none).
window.addEventListener("DOMContentLoaded", () => {
  const root = document.getElementById("swagger-ui");
  window.ui = SwaggerUIBundle({
    url: root.dataset.spec,
    dom_id: "#swagger-ui",
    deepLinking: true,
    validatorUrl: null, // the default sends the spec to an outside validator
  });
});
