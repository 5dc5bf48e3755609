// The gateway's Swagger UI page, every file served by the gateway. The OpenAPI document's address comes
// from the page (data-openapi), so that it follows a proxy's path prefix.
"use strict";

(function () {
  const root = document.getElementById("swagger-ui");
  if (typeof SwaggerUIBundle === "undefined") {
    root.textContent = "Swagger UI's files did not load; see the browser console.";
    return;
  }
  window.ui = SwaggerUIBundle({
    url: root.dataset.openapi,
    domNode: root,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
    deepLinking: true,
    // Swagger UI's default shows a badge from validator.swagger.io: a request to another host.
    validatorUrl: null,
    // The token given to "Authorize" stays in the page, not in localStorage.
    persistAuthorization: false,
    tryItOutEnabled: false,
  });
})();
