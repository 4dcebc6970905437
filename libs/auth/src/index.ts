export * from './auth.module';
export * from './entities';
export * from './guards/authentication.guard';
export * from './guards/decorators';
export * from './guards/workspace.interceptor';
export * from './services/credentials';
export * from './services/principal.service';
export * from './services/accounts.service';
