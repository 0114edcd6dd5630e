import { Platform } from '../../src/platforms/platform.js';
import { describePublishing } from './support/publishing-scenarios.js';

// The "Done when" scenarios through the whole server, repository and tickets on the GitLab stand-in.
describePublishing(Platform.GitLab);
