import { InvalidInputError } from '@app/core';
import { readVideoPerformanceCsv } from './video-performance-csv';

const FIELD = 'videoPerformanceFileInfo';
const HEADER = 'platform,videoURL,creatorHandle,views,likes,shares,comments,saves,datePosted';

const read = (text: string) => readVideoPerformanceCsv(Buffer.from(text, 'utf8'), FIELD);

function contextOf(text: string | Buffer): Record<string, unknown> {
  try {
    readVideoPerformanceCsv(typeof text === 'string' ? Buffer.from(text, 'utf8') : text, FIELD);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidInputError);
    return (error as InvalidInputError).context ?? {};
  }
  throw new Error('expected the file to be refused');
}

describe('readVideoPerformanceCsv', () => {
  it('reads every field of every line', () => {
    const records = read(
      `${HEADER}\r\nSocialA,https://a.example/v/1,@maya,100,10,2,3,1,2026-03-01\r\n` +
        `SocialB,https://b.example/v/2,"Bo, the ""rider""",5,0,0,0,0,2026-03-02\r\n`,
    );
    expect(records.map((record) => ({ ...record }))).toEqual([
      {
        platform: 'SocialA',
        videoURL: 'https://a.example/v/1',
        creatorHandle: '@maya',
        views: 100,
        likes: 10,
        shares: 2,
        comments: 3,
        saves: 1,
        datePosted: '2026-03-01',
      },
      {
        platform: 'SocialB',
        videoURL: 'https://b.example/v/2',
        creatorHandle: 'Bo, the "rider"',
        views: 5,
        likes: 0,
        shares: 0,
        comments: 0,
        saves: 0,
        datePosted: '2026-03-02',
      },
    ]);
  });

  it('takes the columns in any order, names in any case, and only the required ones', () => {
    const records = read('CREATORHANDLE, Platform ,videoUrl\nmaya,SocialB,http://b.example/x\n');
    expect(records.map((record) => ({ ...record }))).toEqual([
      { creatorHandle: 'maya', platform: 'SocialB', videoURL: 'http://b.example/x' },
    ]);
  });

  it('leaves empty optional cells out and trims cells', () => {
    const records = read(`${HEADER}\nSocialA , https://a.example/v , maya ,, 7 ,,,,\n`);
    expect({ ...records[0] }).toEqual({
      platform: 'SocialA',
      videoURL: 'https://a.example/v',
      creatorHandle: 'maya',
      likes: 7,
    });
  });

  it('reads a header without records as no records', () => {
    expect(read(`${HEADER}\n`)).toEqual([]);
  });

  it('keys a bad value by line (header = line 1) and column', () => {
    const text =
      `${HEADER}\n` +
      'SocialA,https://a.example/1,maya,1,1,1,1,1,2026-03-01\n' +
      'SocialA,https://a.example/2,maya,1,1,1,1,1,2026-03-01\n' +
      'SocialA,https://a.example/3,maya,-5,1,1,1,1,2026-02-30\n';
    expect(contextOf(text)).toEqual({
      [`${FIELD}.line 4.views`]: 'must not be less than 0',
      [`${FIELD}.line 4.datePosted`]: 'must be a real date written as YYYY-MM-DD',
    });
  });

  it('reports missing required values, unknown platforms, bad URLs and non-integers', () => {
    expect(contextOf(`${HEADER}\nSocialC,ftp://x.example/1,,1.5,ten,,,,\n`)).toEqual({
      [`${FIELD}.line 2.platform`]: expect.stringMatching(/^must be one of/),
      [`${FIELD}.line 2.videoURL`]: 'must be an http(s) URL',
      [`${FIELD}.line 2.creatorHandle`]: 'must not be empty',
      [`${FIELD}.line 2.views`]: expect.stringMatching(/integer/),
      [`${FIELD}.line 2.likes`]: expect.stringMatching(/integer/),
    });
  });

  it('counts lines of multi-line quoted fields', () => {
    const text = `platform,videoURL,creatorHandle\nSocialA,https://a.example/1,"two\nlines"\nSocialX,https://a.example/2,maya\n`;
    expect(contextOf(text)).toEqual({
      [`${FIELD}.line 4.platform`]: expect.stringMatching(/^must be one of/),
    });
  });

  it('refuses a line with too few or too many fields', () => {
    expect(
      contextOf('platform,videoURL,creatorHandle\nSocialA,https://a.example/1\nSocialA,a,b,c\n'),
    ).toEqual({
      [`${FIELD}.line 2`]: 'has 2 fields; the header has 3',
      [`${FIELD}.line 3`]: 'has 4 fields; the header has 3',
    });
  });

  it('refuses unknown, repeated and missing columns in the header', () => {
    expect(contextOf('platform,videoURL,clicks,platform,\nSocialA,x,1,SocialA,\n')).toEqual({
      [`${FIELD}.line 1.clicks`]: expect.stringMatching(/^is not a known column/),
      [`${FIELD}.line 1.platform`]: 'appears more than once',
      [`${FIELD}.line 1.column 5`]: expect.stringMatching(/^is not a known column/),
      [`${FIELD}.line 1.creatorHandle`]: 'is a required column',
    });
  });

  it('refuses record fields that are not CSV columns (id, source, ...)', () => {
    expect(contextOf('id,platform,videoURL,creatorHandle\n1,SocialA,http://a.example,m\n')).toEqual(
      {
        [`${FIELD}.line 1.id`]: expect.stringMatching(/^is not a known column/),
      },
    );
  });

  it('reports CSV syntax errors with their line', () => {
    expect(contextOf(`${HEADER}\nSocialA,https://a.example/1,ma"ya,1,1,1,1,1,\n`)).toEqual({
      [`${FIELD}.line 2`]: expect.stringMatching(/quote inside an unquoted field/),
    });
    expect(contextOf(`${HEADER}\nSocialA,https://a.example/1,"maya,1,1,1,1,1,\n`)).toEqual({
      [`${FIELD}.line 2`]: expect.stringMatching(/never closed/),
    });
  });

  it('refuses an empty file, and bytes that are not UTF-8', () => {
    expect(contextOf('')).toEqual({ [FIELD]: 'has no header row' });
    expect(contextOf(Buffer.from([0x70, 0xff, 0xfe, 0x0a]))).toEqual({
      [FIELD]: 'is not UTF-8 text',
    });
  });

  it('takes 1000 records and refuses 1001', () => {
    const line = 'SocialA,https://a.example/v,maya,1\n';
    const header = 'platform,videoURL,creatorHandle,views\n';
    expect(read(header + line.repeat(1000))).toHaveLength(1000);
    expect(contextOf(header + line.repeat(1001))).toEqual({
      [FIELD]: 'has more than 1000 records; split it into several files',
    });
  });

  it('stops after 20 bad lines', () => {
    const context = contextOf(
      `platform,videoURL,creatorHandle\n${'SocialX,http://a.example,m\n'.repeat(50)}`,
    );
    expect(Object.keys(context)).toHaveLength(20);
  });
});
