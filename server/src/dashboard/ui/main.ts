import { render } from "preact";
import { App } from "./app.js";
import { html } from "./html.js";

const root = document.getElementById("app")!;
root.textContent = ""; // drop the "Loading" placeholder the server put there
render(html`<${App} />`, root);
