// Exits 0 when the server at the URL answers: `node scripts/reachable.js mysql|redis URL`.
const net = require('node:net');

const [kind, url] = process.argv.slice(2);
const parsed = new URL(url);
const port = Number(parsed.port || (kind === 'mysql' ? 3306 : 6379));

async function check() {
  if (kind === 'mysql') {
    const mysql = require('mysql2/promise');
    const connection = await mysql.createConnection({ uri: url, connectTimeout: 3000 });
    await connection.query('SELECT 1');
    await connection.end();
    return;
  }
  await new Promise((resolve, reject) => {
    const socket = net.connect({ host: parsed.hostname, port, timeout: 3000 }, () => {
      socket.write('PING\r\n');
    });
    socket.once('data', (data) => {
      socket.end();
      if (data.toString().startsWith('+PONG')) resolve();
      else reject(new Error(data.toString()));
    });
    socket.once('timeout', () => reject(new Error('timeout')));
    socket.once('error', reject);
  });
}

check().then(
  () => process.exit(0),
  () => process.exit(1),
);
