import {
  deviceLogMessage,
  MAX_MESSAGE_LENGTH,
  messageHash,
  serialCandidates,
} from './device-log-text';

const PASS_ID = '0193a5e0-7b7a-7c1e-9d51-3f0b6c1e2a4b';
const HOLDER_SERIAL = '5f0c2a9e4b7d41c3a8e6d2f1b0c9a7e4';

describe('serialCandidates', () => {
  it("reads the serial number Wallet's own messages name", () => {
    const message =
      `Get pass task (pass type pass.com.example, serial number ${PASS_ID}, if-modified-since ` +
      'Wed, 25 Nov 2026 09:00:00 GMT; with web service url https://wallet.example/passkit) ' +
      'encountered error: Unexpected response code 401';
    expect(serialCandidates(message)).toEqual([PASS_ID]);
  });

  it('reads any id after "serial number", of any shape, cut off at neither end', () => {
    expect(serialCandidates('Register task (serial number E5982H-I2, ...) failed')).toEqual([
      'E5982H-I2',
    ]);
    expect(serialCandidates('{"serialNumber":"member_10442"}')).toEqual(['member_10442']);
    expect(serialCandidates('serial number: abc')).toEqual(['abc']);
    // Longer than 64 characters: no serial number of ours, and no prefix of it either.
    expect(serialCandidates(`serial number ${'a'.repeat(65)}`)).toEqual([]);
  });

  it('finds pass ids and holder serial numbers anywhere, lower-cased, as whole words', () => {
    expect(
      serialCandidates(
        `GET https://x.example/passkit/v1/passes/pass.t/${HOLDER_SERIAL.toUpperCase()} -> 401`,
      ),
    ).toEqual([HOLDER_SERIAL]);
    expect(serialCandidates(`error for ${PASS_ID}.`)).toEqual([PASS_ID]);
    // Part of a longer word: not a serial number.
    expect(serialCandidates(`x${HOLDER_SERIAL}`)).toEqual([]);
    expect(serialCandidates(`${PASS_ID}-2`)).toEqual([]);
  });

  it('names the "serial number" one first, without repeats, at most four', () => {
    const other = '0193a5e0-7b7a-7c1e-9d51-3f0b6c1e2a4c';
    expect(serialCandidates(`${other} then serial number ${PASS_ID} and again ${PASS_ID}`)).toEqual(
      [PASS_ID, other],
    );
    const many = Array.from({ length: 6 }, (_, i) => `${i}`.repeat(32)).join(' ');
    expect(serialCandidates(many)).toHaveLength(4);
  });

  it('finds nothing in a message that names no serial number', () => {
    expect(
      serialCandidates(
        "Web service error for pass.com.example (https://wallet.example/passkit): Response to 'What changed?' request included 1 serial numbers but the lastUpdated tag (1764000000) remained the same.",
      ),
    ).toEqual([]);
    expect(serialCandidates('serial number (null)')).toEqual([]);
    expect(serialCandidates('')).toEqual([]);
  });

  it('takes little time on text made to make a pattern backtrack', () => {
    const started = process.hrtime.bigint();
    serialCandidates(`${'serial number '.repeat(140)}${' '.repeat(30)}`);
    serialCandidates('0'.repeat(MAX_MESSAGE_LENGTH));
    serialCandidates(`${'a-'.repeat(MAX_MESSAGE_LENGTH / 2)}`);
    expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(500);
  });
});

describe('deviceLogMessage', () => {
  it("drops the device's leading timestamp and the white space around", () => {
    expect(deviceLogMessage('[2026-11-26 10:00:00 +0000] Get pass task failed\n')).toBe(
      'Get pass task failed',
    );
    expect(deviceLogMessage('  [2026-11-26T10:00:00Z]Register task failed')).toBe(
      'Register task failed',
    );
    // Only a leading time: anything else in brackets is the message.
    expect(deviceLogMessage('[warning] at [2026-11-26 10:00:00 +0000]')).toBe(
      '[warning] at [2026-11-26 10:00:00 +0000]',
    );
  });

  it('keeps every other character as sent, at most 2,000 of them', () => {
    const text = 'a\u0000b\u001b[31mc <script>"\u202e\ud83d\ude00';
    expect(deviceLogMessage(text)).toBe(text);
    expect(deviceLogMessage('x'.repeat(5000))).toHaveLength(MAX_MESSAGE_LENGTH);
  });

  it('replaces a lone surrogate, also one left by the cut, with U+FFFD', () => {
    expect(deviceLogMessage('a\ud800b\udc00c')).toBe('a\ufffdb\ufffdc');
    const cut = deviceLogMessage(`${'x'.repeat(MAX_MESSAGE_LENGTH - 1)}\ud83d\ude00`);
    expect(cut).toHaveLength(MAX_MESSAGE_LENGTH);
    expect(cut.endsWith('\ufffd')).toBe(true);
  });
});

describe('messageHash', () => {
  it('is the hex SHA-256 of the UTF-8 text', () => {
    expect(messageHash('abc')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
    expect(messageHash('\u00e9')).not.toBe(messageHash('e\u0301'));
  });
});
