import { validateVideoPerformance } from './video-performance.dto';

describe('validateVideoPerformance', () => {
  it('answers a record with prototype keys as the global pipe would, not with a TypeError', () => {
    const record = {
      platform: 'SocialA',
      videoURL: 'https://socialA.example/v/8f3k2',
      creatorHandle: '@ridewithmaya',
      views: { constructor: 'x' },
    };
    expect(validateVideoPerformance(record, '[0]')).toEqual({
      errors: { '[0].views': 'must be an integer number' },
    });
  });
});
