// s3rver ships no type declarations; this is the part of its API s3rver-main.mjs uses.
declare module "s3rver";
