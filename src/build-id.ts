// Which build of the bundle this is: scripts/bundle-server.mjs writes a hash of the bundle's entry
// over tsc's output of this file. Unbundled (tsc's output alone, or from source) it stays so.
export const BUILD_ID: string = 'unbundled';
