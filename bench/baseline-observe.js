'use strict';
/**
 * What the bare baselines (bench/baseline-api-server.js, bench/baseline-registrations-server.js)
 * do per request beside their SQL, as the service does it: one access-log line through pino
 * with the service's JsonLogger options (libs/core/src/logging/json-logger.ts; LOG_LEVEL,
 * default info) and one sample of the service's prom-client histogram
 * (libs/core/src/ops/metrics.service.ts: `http_request_duration_seconds` by method and route,
 * the same buckets), both when the response ends.
 */
const { newId } = require('../dist/libs/core/src/ids/ids.js');
const pino = require('pino');
const { Histogram, Registry } = require('prom-client');

const logger = pino({
  level: process.env.LOG_LEVEL ?? 'info',
  base: undefined,
  timestamp: pino.stdTimeFunctions.isoTime,
  formatters: { level: (label) => ({ level: label }) },
});
const httpDuration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'HTTP request duration in seconds, by method and route',
  labelNames: ['method', 'route'],
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  registers: [new Registry()],
});

/** Express middleware: the log line (with the caller, when the handler set it) and the sample. */
function observe(req, res, next) {
  const started = process.hrtime.bigint();
  res.on('finish', () => {
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const route = req.route?.path !== undefined ? `${req.baseUrl}${req.route.path}` : 'unmatched';
    httpDuration.observe({ method: req.method, route }, seconds);
    logger.info({
      context: 'Http',
      requestId: newId(),
      method: req.method,
      path: req.originalUrl.split('?')[0],
      status: res.statusCode,
      durationMs: Math.round(seconds * 1000),
      userId: req.userId,
      apiKeyId: req.apiKeyId,
    });
  });
  next();
}

module.exports = { observe };
