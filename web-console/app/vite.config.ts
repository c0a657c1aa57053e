import react from "@vitejs/plugin-react";
import { defineConfig } from "vitest/config";

// served by the gateway under /console/ (static/console/ of the web-console jar)
export default defineConfig({
  base: "/console/",
  plugins: [react()],
  build: { outDir: "dist", emptyOutDir: true, chunkSizeWarningLimit: 1024 },
  test: { environment: "happy-dom", include: ["test/**/*.test.tsx"] },
});
