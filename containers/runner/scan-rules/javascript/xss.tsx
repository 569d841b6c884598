import express from "express";
import escapeHtml from "escape-html";

const app = express();

app.get("/hello", (req, res) => {
  const name = req.query.name as string;
  // ruleid: bouts.js.xss.request-data-in-html-response
  res.send("<h1>Hello " + name + "</h1>");
  const greeting = `<p>Welcome back, ${req.params.user}</p>`;
  // ruleid: bouts.js.xss.request-data-in-html-response
  res.status(200).send(greeting);
});

app.get("/safe", (req, res) => {
  // ok: bouts.js.xss.request-data-in-html-response
  res.send("<h1>Hello " + escapeHtml(req.query.name as string) + "</h1>");
  // ok: bouts.js.xss.request-data-in-html-response
  res.send({ name: req.query.name });
  // ok: bouts.js.xss.request-data-in-html-response
  res.json({ name: req.query.name });
});

export function Comment(props: { body: string }) {
  // ruleid: bouts.js.xss.unescaped-html-injection
  return <div dangerouslySetInnerHTML={{ __html: props.body }} />;
}

export function Static() {
  // ok: bouts.js.xss.unescaped-html-injection
  return <div dangerouslySetInnerHTML={{ __html: "<b>fixed</b>" }} />;
}

export function render(el: HTMLElement, text: string): void {
  // ruleid: bouts.js.xss.unescaped-html-injection
  el.innerHTML = text;
  // ok: bouts.js.xss.unescaped-html-injection
  el.innerHTML = "<b>fixed</b>";
}
