import { can, type StaffPermission, type StaffRole } from "../staff/roles";

/**
 * The console's navigation (issue 23): each link with the permission it needs; a member sees only
 * the links their role may open. A new console page adds its line here. Pure.
 */
interface ConsoleNavItem {
  href: string;
  label: string;
  permission: StaffPermission | null;
}

const CONSOLE_NAV: readonly ConsoleNavItem[] = [
  { href: "/admin", label: "Home", permission: null },
  { href: "/admin/rentals", label: "Online rentals", permission: "desk.view" },
  { href: "/admin/reservations", label: "Reservations", permission: "desk.view" },
  { href: "/admin/leads", label: "Leads", permission: "desk.view" },
  { href: "/admin/tenants", label: "Tenants", permission: "desk.view" },
  { href: "/admin/payments", label: "Payments", permission: "desk.view" },
  { href: "/admin/reconciliation", label: "Reconciliation", permission: "desk.view" },
  { href: "/admin/sitelink-journal", label: "SiteLink journal", permission: "desk.view" },
  { href: "/admin/content", label: "Content", permission: "content.edit" },
  { href: "/admin/changes", label: "Website changes", permission: "content.edit" },
  { href: "/admin/staff", label: "Staff", permission: "staff.manage" },
  { href: "/admin/audit", label: "Audit trail", permission: "audit.view" },
  { href: "/admin/preview", label: "Preview the site", permission: "content.edit" },
  { href: "/admin/content/images", label: "Images", permission: "content.edit" },
  { href: "/admin/security", label: "Your sign-in", permission: null },
  { href: "/admin/reports", label: "Your reports", permission: null },
];

export function consoleNavFor(role: StaffRole): ConsoleNavItem[] {
  return CONSOLE_NAV.filter((item) => item.permission === null || can(role, item.permission));
}
