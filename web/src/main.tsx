// The browser client's entry: mounts the app into the HTML shell's <main id="app">.
import { render } from "preact";

import { App } from "./app";
import "./style.css";

const root = document.getElementById("app");
if (root) {
  render(<App />, root);
}
