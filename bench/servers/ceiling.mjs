// The ceiling: a bare node:http server answering each request body with Roster's precomputed answer to it.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const answers = new Map(
  Object.entries(JSON.parse(readFileSync(process.env.ANSWERS_FILE, 'utf8'))).map(([body, answer]) => [
    body,
    Buffer.from(answer),
  ]),
);
createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const body = answers.get(Buffer.concat(chunks).toString());
    if (!body) return void res.writeHead(404).end();
    res.writeHead(200, {
      'Content-Type': 'application/json; charset=utf-8',
      'Cache-Control': 'max-age=0, private, must-revalidate',
      'Content-Length': body.length,
    });
    res.end(body);
  });
}).listen(Number(process.env.PORT), '127.0.0.1', () => process.send?.('ready'));
