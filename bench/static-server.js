'use strict';
/** The baseline of bench:download: express.static over STATIC_DIR on STATIC_PORT (127.0.0.1). */
const express = require('express');

const app = express();
app.disable('x-powered-by');
app.get('/health', (_req, res) => res.json({ status: 'ok' }));
app.use(express.static(process.env.STATIC_DIR));
const server = app.listen(Number(process.env.STATIC_PORT), '127.0.0.1');
process.on('SIGTERM', () => server.close());
