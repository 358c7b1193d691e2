// The `navigator` global and its Navigator interface (HTML's WorkerNavigator, userAgent only). The
// user agent names this host honestly: code that looks for another runtime's name must not find it.

export const USER_AGENT = 'integration-host';

export class Navigator {
  constructor() {
    throw new TypeError('Illegal constructor');
  }

  get userAgent(): string {
    if (this !== navigator) throw new TypeError('Illegal invocation: not a Navigator');
    return USER_AGENT;
  }

  get [Symbol.toStringTag](): string {
    return 'Navigator';
  }
}

export const navigator: Navigator = Object.create(Navigator.prototype);
