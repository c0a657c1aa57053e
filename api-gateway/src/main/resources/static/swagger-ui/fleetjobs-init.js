// Swagger UI over the contract the gateway publishes (api/openapi.yaml as built into the gateway).
window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: new URL('../openapi.yaml', window.location.href).toString(),
    dom_id: '#swagger-ui',
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout'
  });
});
