/**
 * User agents of the services that fetch a link to draw its preview card in a chat or a feed
 * (iMessage sends facebookexternalhit/Twitterbot), and of the big search crawlers. Their requests
 * are redirected like any other but not counted as clicks. Names are matched whole, so phone
 * models such as "CUBOT" in an Android browser's user agent do not read as bots, and in-app
 * browsers (Facebook's FBAN, LinkedInApp, Telegram's web view), which are people, still count.
 */
const PREVIEW_AGENTS = new RegExp(
  `(?:^|[^a-z])(?:${[
    'facebookexternalhit',
    'facebot',
    'twitterbot',
    'slackbot',
    'slack-imgproxy',
    'whatsapp',
    'telegrambot',
    'discordbot',
    'linkedinbot',
    'skypeuripreview',
    'pinterestbot',
    'redditbot',
    'applebot',
    'googlebot',
    'bingbot',
    'yandexbot',
    'duckduckbot',
    'embedly',
    'iframely',
    'mastodon',
    'bluesky cardyb',
  ].join('|')})(?:[^a-z]|$)`,
  'i',
);

export function isLinkPreviewAgent(userAgent: string | undefined): boolean {
  return userAgent !== undefined && PREVIEW_AGENTS.test(userAgent);
}
