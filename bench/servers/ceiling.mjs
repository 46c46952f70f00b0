// The ceiling: a bare node:http server answering every request with precomputed response bytes.
import { createServer } from 'node:http';

const body = Buffer.from(process.env.BODY ?? '{}');
const headers = {
  'Content-Type': 'application/json; charset=utf-8',
  'Cache-Control': 'max-age=0, private, must-revalidate',
  'Content-Length': body.length,
};
createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, headers);
    res.end(body);
  });
}).listen(Number(process.env.PORT), '127.0.0.1', () => process.send?.('ready'));
