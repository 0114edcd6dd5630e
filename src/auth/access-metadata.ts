/** Metadata keys of the two access declarations; the guards read them through `accessDeclaration`. */
export const REQUIRED_PERMISSIONS_KEY = 'pipeline-service:permissions';
export const IS_PUBLIC_KEY = 'pipeline-service:public';
