// npm ci, unless node_modules was installed from this very package-lock.json (a stamp of its hash): a
// rebuild then costs nothing, while a changed lock or a fresh checkout installs exactly what the lock says.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";

const stamp = "node_modules/.installed-from-lock";
const lock = createHash("sha256").update(readFileSync("package-lock.json")).digest("hex");
if (existsSync(stamp) && readFileSync(stamp, "utf8") === lock) {
  console.log("node_modules is installed from package-lock.json");
} else {
  const npm = process.env.npm_execpath ? [process.execPath, [process.env.npm_execpath]] : ["npm", []];
  execFileSync(npm[0], [...npm[1], "ci", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"],
    { stdio: "inherit", shell: process.platform === "win32" });
  writeFileSync(stamp, lock);
}
