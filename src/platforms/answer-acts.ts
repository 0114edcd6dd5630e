/** The answer act where a pull-request comment reaches the service (GitHub, GitLab): a `/sa` command. */
export const COMMAND_COMMENT_ANSWER_ACT = 'comment `/sa` (instructions may follow it)';
