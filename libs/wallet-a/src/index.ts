export * from './apns/apns.types';
export * from './apns/apns-client';
export * from './apns/apns-client.factory';
export * from './apns/apns-connection';
export * from './apns/apns-response';
export * from './apns/backoff';
export * from './apns/device-token';
export * from './apns/provider-token';
