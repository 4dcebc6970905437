import { classifyResponse, parseErrorBody } from './apns-response';

describe('classifyResponse', () => {
  it('maps 200 to sent with the apns-id', () => {
    expect(classifyResponse(200, {}, 'id-1')).toEqual({
      kind: 'result',
      result: { status: 'sent', apnsId: 'id-1' },
    });
  });

  it('maps 410 to unregistered with the time APNs gave (milliseconds)', () => {
    expect(
      classifyResponse(410, { reason: 'Unregistered', timestamp: 1767225600000 }, 'x'),
    ).toEqual({
      kind: 'result',
      result: {
        status: 'unregistered',
        reason: 'Unregistered',
        at: new Date('2026-01-01T00:00:00.000Z'),
      },
    });
    expect(classifyResponse(410, { reason: 'ExpiredToken' }, 'x')).toEqual({
      kind: 'result',
      result: { status: 'unregistered', reason: 'ExpiredToken' },
    });
  });

  it.each(['BadDeviceToken', 'DeviceTokenNotForTopic'])('maps 400 %s to unregistered', (reason) => {
    expect(classifyResponse(400, { reason }, 'x')).toEqual({
      kind: 'result',
      result: { status: 'unregistered', reason },
    });
  });

  it('asks for a new provider token on 403 ExpiredProviderToken', () => {
    expect(classifyResponse(403, { reason: 'ExpiredProviderToken' }, 'x')).toEqual({
      kind: 'refresh-token',
      reason: 'ExpiredProviderToken',
      httpStatus: 403,
    });
  });

  it.each([
    [429, 'TooManyRequests'],
    [429, 'TooManyProviderTokenUpdates'],
    [500, 'InternalServerError'],
    [503, 'ServiceUnavailable'],
    [502, undefined],
  ])('retries %i %s', (status, reason) => {
    expect(classifyResponse(status, { reason }, 'x')).toMatchObject({
      kind: 'retry',
      httpStatus: status,
      reason: reason ?? `HTTP ${status}`,
      dropConnection: false,
    });
  });

  it('retries 503 Shutdown on a new connection', () => {
    expect(classifyResponse(503, { reason: 'Shutdown' }, 'x')).toMatchObject({
      kind: 'retry',
      dropConnection: true,
    });
  });

  it.each([
    [400, 'MissingTopic'],
    [400, 'BadTopic'],
    [403, 'InvalidProviderToken'],
    [403, 'BadCertificate'],
    [404, 'BadPath'],
    [405, 'MethodNotAllowed'],
    [413, 'PayloadTooLarge'],
  ])('fails %i %s at once with the reason', (status, reason) => {
    expect(classifyResponse(status, { reason }, 'x')).toEqual({
      kind: 'result',
      result: { status: 'failed', reason, httpStatus: status },
    });
  });

  it('names the status when APNs gave no reason', () => {
    expect(classifyResponse(418, {}, 'x')).toEqual({
      kind: 'result',
      result: { status: 'failed', reason: 'HTTP 418', httpStatus: 418 },
    });
  });
});

describe('parseErrorBody', () => {
  it('reads reason and timestamp, and ignores anything else', () => {
    expect(parseErrorBody('{"reason":"Unregistered","timestamp":12}')).toEqual({
      reason: 'Unregistered',
      timestamp: 12,
    });
    expect(parseErrorBody('')).toEqual({});
    expect(parseErrorBody('not json')).toEqual({});
    expect(parseErrorBody('"str"')).toEqual({});
    expect(parseErrorBody('{"reason":5,"timestamp":"x"}')).toEqual({
      reason: undefined,
      timestamp: undefined,
    });
  });
});
